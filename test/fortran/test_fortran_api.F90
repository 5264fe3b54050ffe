! SPDX-License-Identifier: BSD-3-Clause
! Copyright (c) 2026 the darrayio authors (AUTHORS)
!
! test_fortran_api.F90 - every call of module darrayio, at 1-4 processes.
!
! The oracle is closed form: element (i, j, k) of the global array (1-based
! Fortran indices) holds value(i, j, k) = i + 100 j + 10000 k, and sits at
! byte 8 ((i-1) + nx ((j-1) + ny (k-1))) of a Fortran-order file. Rank 0
! reads the file with plain Fortran stream I/O and checks every element at
! that offset; every rank checks what it reads back, and that ghosts were
! left alone. Sections (1-based starts) are checked the same way. The
! communicator and info are passed as mpi_f08 types to some calls and as
! integer handles (their MPI_VAL) to others, so both generic forms run.
! Every call passes ierr here and checks the code; test_fortran_stop.f90 is
! the program that leaves it out.
program test_fortran_api
  use, intrinsic :: iso_fortran_env, only: int32, int64, real64, error_unit
  use mpi_f08
  use darrayio
  implicit none

  integer, parameter :: nx = 7, ny = 5, nz = 4
  real(real64), parameter :: sentinel = -1.0_real64
  integer :: rank, nprocs, bad
  character(len=256) :: path, path2

  rank = -1
  bad = 0
  call test_version('before MPI_Init')
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  path = 'test_fortran_api.dat'
  path2 = 'test_fortran_api2.dat'

  call test_error_names()
  call test_whole_and_sections()
  call test_orders()
  call test_multipartition()
  call test_errors()
  call test_advisor()
  call test_paper()
  call test_get_info()
  call test_delete()
  call test_dataset()

  call MPI_Allreduce(MPI_IN_PLACE, bad, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0) then
    if (bad == 0) then
      print '(a,i0,a)', 'test_fortran_api: P=', nprocs, ': OK'
    else
      print '(a,i0,a)', 'test_fortran_api: ', bad, ' checks FAILED'
    end if
  end if
  call MPI_Finalize()
  call test_version('after MPI_Finalize')
  if (bad /= 0) error stop 1

contains

  subroutine expect(cond, what)
    logical, intent(in) :: cond
    character(*), intent(in) :: what
    if (cond) return
    bad = bad + 1
    write (error_unit, '(a,i0,a)') 'test_fortran_api: rank ', rank, &
      ': FAILED: ' // what
  end subroutine expect

  subroutine expect_rc(rc, want, what)
    integer, intent(in) :: rc, want
    character(*), intent(in) :: what
    call expect(rc == want, what // ': got ' // darray_err_name(rc) // &
      ', expected ' // darray_err_name(want))
  end subroutine expect_rc

  real(real64) function value(i, j, k)
    integer(int64), intent(in) :: i, j, k
    value = real(i + 100 * j + 10000 * k, real64)
  end function value

  ! The library's version (the header it was compiled with) is the module's
  ! (configure's numbers, read from the header when autoconf ran), as
  ! numbers and as text; outside MPI's lifetime too, since the calls need
  ! no MPI.
  subroutine test_version(when)
    character(*), intent(in) :: when
    integer :: major, minor, patch, ierr
    character(len=40) :: want
    major = -1
    minor = -1
    patch = -1
    call darray_get_version(major, minor, patch, ierr)
    call expect_rc(ierr, DARRAY_SUCCESS, 'darray_get_version ' // when)
    call expect(major == DARRAYIO_VERSION_MAJOR .and. &
      minor == DARRAYIO_VERSION_MINOR .and. &
      patch == DARRAYIO_VERSION_PATCH, &
      'darray_get_version ' // when // ' differs from the module''s ' // &
      'DARRAYIO_VERSION_* (library and module disagree)')
    write (want, '(i0,a,i0,a,i0)') DARRAYIO_VERSION_MAJOR, '.', &
      DARRAYIO_VERSION_MINOR, '.', DARRAYIO_VERSION_PATCH
    call expect(darray_version_string() == trim(want), &
      'darray_version_string ' // when // ' is "' // &
      darray_version_string() // '", the module is ' // trim(want))
    ! Without ierr: the call succeeds, so it must return, not stop.
    call darray_get_version(major, minor, patch)
    call expect(major == DARRAYIO_VERSION_MAJOR, &
      'darray_get_version without ierr ' // when)
  end subroutine test_version

  ! Every error constant has the value the C library names after it.
  subroutine test_error_names()
    integer :: codes(34), n
    character(len=20) :: names(34)
    codes = [DARRAY_SUCCESS, DARRAY_EINVAL, DARRAY_ENULL, DARRAY_ENDIMS, &
      DARRAY_ESIZE, DARRAY_ETYPE, DARRAY_EDIST, DARRAY_EGRID, DARRAY_EORDER, &
      DARRAY_EGHOST, DARRAY_EDISP, DARRAY_ESTATE, DARRAY_EHINT, DARRAY_EMODE, &
      DARRAY_ECOMM, DARRAY_EINDEX, DARRAY_EBADHANDLE, DARRAY_EOVERLAP, &
      DARRAY_ELIMIT, DARRAY_EFORMAT, DARRAY_ENOTSUP, DARRAY_EREQUEST, &
      DARRAY_EINCONSISTENT, DARRAY_EREMOTE, DARRAY_EIO, &
      DARRAY_ENOSPC, DARRAY_EACCESS, DARRAY_ENOENT, DARRAY_EEOF, &
      DARRAY_ENOMEM, DARRAY_EMPI, DARRAY_EISDIR, DARRAY_ELOCK, DARRAY_ECRC]
    names = [character(len=20) :: 'DARRAY_SUCCESS', 'DARRAY_EINVAL', &
      'DARRAY_ENULL', 'DARRAY_ENDIMS', 'DARRAY_ESIZE', 'DARRAY_ETYPE', &
      'DARRAY_EDIST', 'DARRAY_EGRID', 'DARRAY_EORDER', 'DARRAY_EGHOST', &
      'DARRAY_EDISP', 'DARRAY_ESTATE', 'DARRAY_EHINT', 'DARRAY_EMODE', &
      'DARRAY_ECOMM', 'DARRAY_EINDEX', 'DARRAY_EBADHANDLE', 'DARRAY_EOVERLAP', &
      'DARRAY_ELIMIT', 'DARRAY_EFORMAT', 'DARRAY_ENOTSUP', 'DARRAY_EREQUEST', &
      'DARRAY_EINCONSISTENT', 'DARRAY_EREMOTE', 'DARRAY_EIO', &
      'DARRAY_ENOSPC', 'DARRAY_EACCESS', 'DARRAY_ENOENT', 'DARRAY_EEOF', &
      'DARRAY_ENOMEM', 'DARRAY_EMPI', 'DARRAY_EISDIR', 'DARRAY_ELOCK', &
      'DARRAY_ECRC']
    do n = 1, size(codes)
      call expect(darray_err_name(codes(n)) == trim(names(n)), &
        'constant ' // trim(names(n)) // ' is named ' // &
        darray_err_name(codes(n)) // ' by the library')
    end do
    call expect(darray_strerror(DARRAY_EINVAL) == 'invalid argument', &
      'darray_strerror(DARRAY_EINVAL) = "' // darray_strerror(DARRAY_EINVAL) &
      // '"')
    call expect(darray_err_name(12345) == 'DARRAY_EUNKNOWN', 'unknown code')
  end subroutine test_error_names

  ! A 3-D BLOCK array with one ghost layer: queries, whole write and read,
  ! the file on disk, stats, hints, explain, then sections.
  subroutine test_whole_and_sections()
    type(darray_t) :: a
    type(darray_file_t) :: f
    type(darray_stats_t) :: st
    type(MPI_Info) :: info
    integer :: ierr, nd, ncells, psizes(3), r, c, u
    integer(int64) :: g(3), lo(3), ls(3), esize, cnt, bytes, gi(3), li(3)
    integer(int64) :: off, i, j, k
    real(real64), allocatable :: buf(:, :, :)
    character(len=32) :: hint
    character(len=200) :: line

    call darray_create(MPI_COMM_WORLD, [int(nx, int64), int(ny, int64), &
      int(nz, int64)], DARRAY_DOUBLE, a, ierr)
    call expect_rc(ierr, DARRAY_SUCCESS, 'darray_create (mpi_f08 comm)')
    call darray_set_distribution(a, [DARRAY_DIST_NONE, DARRAY_DIST_BLOCK, &
      DARRAY_DIST_BLOCK], ierr=ierr)
    call expect_rc(ierr, DARRAY_SUCCESS, 'darray_set_distribution')
    call darray_set_grid(a, [1, 0, 0], ierr)
    call expect_rc(ierr, DARRAY_SUCCESS, 'darray_set_grid')
    call darray_set_memory_layout(a, ghost=[1_int64, 1_int64, 1_int64], &
      ierr=ierr)
    call expect_rc(ierr, DARRAY_SUCCESS, 'darray_set_memory_layout')
    call darray_commit(a, ierr)
    call expect_rc(ierr, DARRAY_SUCCESS, 'darray_commit')

    call darray_global_shape(a, nd, g, ierr)
    call expect(ierr == 0 .and. nd == 3 .and. all(g == [nx, ny, nz]), &
      'darray_global_shape')
    call darray_elem_size(a, esize, ierr)
    call expect(ierr == 0 .and. esize == 8, 'darray_elem_size')
    call darray_grid(a, psizes, ierr)
    call expect(ierr == 0 .and. psizes(1) == 1 .and. &
      product(psizes) == nprocs, 'darray_grid')
    call darray_num_cells(a, ncells, ierr)
    call expect(ierr == 0 .and. ncells == 1, 'darray_num_cells')
    call darray_local_shape(a, 1, ls, ierr)
    call expect_rc(ierr, DARRAY_SUCCESS, 'darray_local_shape')
    call darray_local_start(a, 1, lo, ierr)
    call expect_rc(ierr, DARRAY_SUCCESS, 'darray_local_start')
    call expect(ls(1) == nx .and. lo(1) == 1 .and. all(lo >= 1), &
      'local start is 1-based, dimension 1 whole')
    call darray_local_count(a, cnt, ierr)
    call expect(ierr == 0 .and. cnt == product(ls), 'darray_local_count')
    call darray_local_bytes(a, bytes, ierr)
    call expect(ierr == 0 .and. (bytes == 8 * product(ls + 2) .or. &
      (cnt == 0 .and. bytes == 0)), 'darray_local_bytes counts the ghosts')

    ! Every local element: locate, global_index, file_offset.
    do k = 1, ls(3)
      do j = 1, ls(2)
        do i = 1, ls(1)
          gi = lo + [i, j, k] - 1
          call darray_locate(a, gi, r, c, li, off, ierr)
          call expect(ierr == 0 .and. r == rank .and. c == 1 .and. &
            all(li == [i, j, k]), 'darray_locate')
          ! ghost 1: the element sits at (i+1, j+1, k+1) of the padded box
          call expect(off == 8 * (i + (ls(1) + 2) * (j + (ls(2) + 2) * k)), &
            'darray_locate offset in the local buffer')
          call darray_global_index(a, rank, 1, li, gi, ierr)
          call expect(ierr == 0 .and. all(gi == lo + [i, j, k] - 1), &
            'darray_global_index')
          call darray_file_offset(a, gi, off, ierr)
          call expect(ierr == 0 .and. off == 8 * ((gi(1) - 1) + nx * &
            ((gi(2) - 1) + ny * (gi(3) - 1))), 'darray_file_offset')
        end do
      end do
    end do

    ! The local piece exactly as a Fortran code declares it, ghosts included.
    allocate (buf(0:ls(1) + 1, 0:ls(2) + 1, 0:ls(3) + 1))
    buf = sentinel
    do k = 1, ls(3)
      do j = 1, ls(2)
        do i = 1, ls(1)
          buf(i, j, k) = value(lo(1) + i - 1, lo(2) + j - 1, lo(3) + k - 1)
        end do
      end do
    end do

    call MPI_Info_create(info)
    call MPI_Info_set(info, 'cb_buffer_size', '1k')
    call darray_file_open(MPI_COMM_WORLD, path, DARRAY_MODE_RDWR + &
      DARRAY_MODE_CREATE + DARRAY_MODE_TRUNC, f, info, ierr)
    call MPI_Info_free(info)
    call expect_rc(ierr, DARRAY_SUCCESS, 'darray_file_open (mpi_f08)')
    call darray_file_get_hint(f, 'cb_buffer_size', hint, ierr)
    call expect(ierr == 0 .and. hint == '1024', &
      'darray_file_get_hint cb_buffer_size = "' // trim(hint) // '"')
    call darray_file_get_hint(f, 'cb_buffer_size', hint(1:3), ierr)
    call expect_rc(ierr, DARRAY_EINVAL, 'darray_file_get_hint, value too short')
    call darray_file_get_hint(f, 'no_such_hint', hint, ierr)
    call expect_rc(ierr, DARRAY_EHINT, 'darray_file_get_hint, unknown key')

    call darray_write(f, a, buf, ierr)
    call expect_rc(ierr, DARRAY_SUCCESS, 'darray_write')
    call darray_file_get_stats(f, st, ierr)
    call expect(ierr == 0 .and. st%calls == 1 .and. &
      len_trim(st%strategy) > 0, 'darray_file_get_stats after a write')
    call check_summary(f)
    call darray_file_reset_stats(f, ierr)
    call darray_file_get_stats(f, st, ierr)
    call expect(ierr == 0 .and. st%calls == 0 .and. st%bytes_written == 0, &
      'darray_file_reset_stats')
    call darray_file_sync(f, ierr)
    call expect_rc(ierr, DARRAY_SUCCESS, 'darray_file_sync')
    if (rank == 0) then
      ! explain to a unit: its first line names the shape in Fortran order
      open (newunit=u, status='scratch', action='readwrite')
      call darray_explain(f, a, .true., u, ierr)
      call expect_rc(ierr, DARRAY_SUCCESS, 'darray_explain to a unit')
      rewind (u)
      read (u, '(a)') line
      close (u)
      call expect(index(line, 'darrayio: write of a 3-D array') == 1 .and. &
        index(line, '7 x 5 x 4') > 0, 'darray_explain: "' // trim(line) // '"')
      call darray_explain(f, a, .false., ierr=ierr)
      call expect_rc(ierr, DARRAY_SUCCESS, 'darray_explain to output_unit')
    end if

    buf = sentinel
    call darray_read(f, a, buf, ierr)
    call expect_rc(ierr, DARRAY_SUCCESS, 'darray_read')
    call check_piece(buf, lo, ls, 'darray_read')
    call darray_file_close(f, ierr)
    call expect(ierr == 0 .and. .not. c_assoc(f), 'darray_file_close')
    call MPI_Barrier(MPI_COMM_WORLD)
    if (rank == 0) call check_file(0_int64, 0_int64, 0_int64, 0_int64, &
      0_int64, 0_int64)
    call MPI_Barrier(MPI_COMM_WORLD)

    call test_sections(a)
    call darray_free(a, ierr)
    call expect(ierr == 0 .and. .not. c_assoc_a(a), 'darray_free')
    call darray_free(a, ierr)
    call expect_rc(ierr, DARRAY_SUCCESS, 'darray_free of a null handle')
  end subroutine test_whole_and_sections

  ! darray_file_stats_summary against every process's darray_file_get_stats,
  ! gathered here and summed and maximized independently; a null handle
  ! fails.
  subroutine check_summary(f)
    type(darray_file_t), intent(in) :: f
    type(darray_stats_t) :: st
    type(darray_stats_summary_t) :: s
    type(darray_file_t) :: dead
    integer(int64) :: mine(11)
    integer(int64), allocatable :: all(:, :)
    integer :: ierr
    call darray_file_get_stats(f, st, ierr)
    call expect_rc(ierr, DARRAY_SUCCESS, 'darray_file_get_stats')
    mine = [st%bytes_read, st%bytes_written, st%read_calls, st%write_calls, &
      st%bytes_exchanged, st%cycles, st%calls, st%peak_temp_bytes, &
      st%collectives, st%bytes_copied, st%messages]
    allocate (all(11, nprocs))
    call MPI_Allgather(mine, 11, MPI_INTEGER8, all, 11, MPI_INTEGER8, &
      MPI_COMM_WORLD)
    call darray_file_stats_summary(f, s, ierr)
    call expect_rc(ierr, DARRAY_SUCCESS, 'darray_file_stats_summary')
    call expect(s%nprocs == nprocs, 'summary: nprocs')
    call expect(s%bytes_read_sum == sum(all(1, :)) .and. &
      s%bytes_read_max == maxval(all(1, :)), 'summary: bytes_read')
    call expect(s%bytes_written_sum == sum(all(2, :)) .and. &
      s%bytes_written_max == maxval(all(2, :)), 'summary: bytes_written')
    call expect(s%read_calls_sum == sum(all(3, :)) .and. &
      s%read_calls_max == maxval(all(3, :)), 'summary: read_calls')
    call expect(s%write_calls_sum == sum(all(4, :)) .and. &
      s%write_calls_max == maxval(all(4, :)), 'summary: write_calls')
    call expect(s%bytes_exchanged_sum == sum(all(5, :)) .and. &
      s%bytes_exchanged_max == maxval(all(5, :)), 'summary: bytes_exchanged')
    call expect(s%cycles_sum == sum(all(6, :)) .and. &
      s%cycles_max == maxval(all(6, :)), 'summary: cycles')
    call expect(s%calls_sum == nprocs .and. s%calls_max == 1 .and. &
      s%calls_sum == sum(all(7, :)), 'summary: calls')
    call expect(s%peak_temp_bytes_max == maxval(all(8, :)), &
      'summary: peak_temp_bytes')
    ! one write: its agreements at least (two, the same on every process)
    call expect(s%collectives_sum == sum(all(9, :)) .and. &
      s%collectives_max == maxval(all(9, :)) .and. &
      minval(all(9, :)) >= 1 .and. &
      minval(all(9, :)) == maxval(all(9, :)), 'summary: collectives')
    call expect(s%bytes_copied_sum == sum(all(10, :)) .and. &
      s%bytes_copied_max == maxval(all(10, :)), 'summary: bytes_copied')
    call expect(s%messages_sum == sum(all(11, :)) .and. &
      s%messages_max == maxval(all(11, :)), 'summary: messages')
    ! every byte of the array written once at least (sieving writes holes)
    call expect(s%bytes_written_sum >= 8_int64 * nx * ny * nz, &
      'summary: the array''s bytes written')
    call darray_file_stats_summary(dead, s, ierr)
    call expect_rc(ierr, DARRAY_EBADHANDLE, 'darray_file_stats_summary, no file')
  end subroutine check_summary

  logical function c_assoc(f)
    use, intrinsic :: iso_c_binding, only: c_associated
    type(darray_file_t), intent(in) :: f
    c_assoc = c_associated(f%p)
  end function c_assoc

  logical function c_assoc_a(a)
    use, intrinsic :: iso_c_binding, only: c_associated
    type(darray_t), intent(in) :: a
    c_assoc_a = c_associated(a%p)
  end function c_assoc_a

  ! The interior of a piece starting at lo (1-based) holds the closed form;
  ! ghosts hold the sentinel.
  subroutine check_piece(buf, lo, ls, what)
    real(real64), intent(in) :: buf(0:, 0:, 0:)
    integer(int64), intent(in) :: lo(3), ls(3)
    character(*), intent(in) :: what
    integer(int64) :: i, j, k, nbad
    real(real64) :: want
    nbad = 0
    do k = 0, ls(3) + 1
      do j = 0, ls(2) + 1
        do i = 0, ls(1) + 1
          if (i < 1 .or. j < 1 .or. k < 1 .or. i > ls(1) .or. j > ls(2) &
              .or. k > ls(3)) then
            want = sentinel
          else
            want = value(lo(1) + i - 1, lo(2) + j - 1, lo(3) + k - 1)
          end if
          if (buf(i, j, k) /= want) nbad = nbad + 1
        end do
      end do
    end do
    call expect(nbad == 0, what // ': wrong values or ghosts in the buffer')
  end subroutine check_piece

  ! Rank 0: every element of the file at its Fortran-order offset holds the
  ! closed form, negated inside the box lo .. hi (empty when lo > hi).
  subroutine check_file(lo1, lo2, lo3, hi1, hi2, hi3)
    integer(int64), intent(in) :: lo1, lo2, lo3, hi1, hi2, hi3
    integer :: u, ios
    integer(int64) :: i, j, k, nbad, fsize
    real(real64) :: v, want
    open (newunit=u, file=trim(path), access='stream', form='unformatted', &
      action='read', status='old', iostat=ios)
    call expect(ios == 0, 'open the file for checking')
    if (ios /= 0) return
    inquire (unit=u, size=fsize)
    call expect(fsize == 8 * nx * ny * nz, 'file size')
    nbad = 0
    do k = 1, nz
      do j = 1, ny
        do i = 1, nx
          read (u, pos=1 + 8 * ((i - 1) + nx * ((j - 1) + ny * (k - 1)))) v
          want = value(i, j, k)
          if (i >= lo1 .and. i <= hi1 .and. j >= lo2 .and. j <= hi2 .and. &
              k >= lo3 .and. k <= hi3) want = -want
          if (v /= want) nbad = nbad + 1
        end do
      end do
    end do
    close (u)
    call expect(nbad == 0, 'the file holds the closed form at every offset')
  end subroutine check_file

  ! Sections with 1-based starts. Rank r writes plane k = r+1 of the box
  ! i = 2..nx-1, all j (negated values), through an integer communicator
  ! and info; then every rank reads the box i = 3..5, j = 2..4, all k.
  subroutine test_sections(a)
    type(darray_t), intent(in) :: a
    type(darray_file_t) :: f
    type(MPI_Info) :: info
    integer :: ierr, nw
    integer(int64) :: i, j, k, start(3), count(3), nbad
    real(real64), allocatable :: sec(:, :, :)
    real(real64) :: want

    nw = min(nprocs, nz)
    call MPI_Info_create(info)
    call MPI_Info_set(info, 'darray_strategy', 'twophase')
    call darray_file_open(MPI_COMM_WORLD%MPI_VAL, path, DARRAY_MODE_RDWR, f, &
      info%MPI_VAL, ierr)
    call MPI_Info_free(info)
    call expect_rc(ierr, DARRAY_SUCCESS, 'darray_file_open (integer handles)')

    start = [2_int64, 1_int64, int(rank + 1, int64)]
    count = [int(nx - 2, int64), int(ny, int64), 1_int64]
    if (rank >= nw) count = 0
    allocate (sec(count(1), count(2), max(count(3), 1_int64)))
    do k = 1, count(3)
      do j = 1, count(2)
        do i = 1, count(1)
          sec(i, j, k) = -value(start(1) + i - 1, start(2) + j - 1, &
            start(3) + k - 1)
        end do
      end do
    end do
    call darray_write_section(f, a, start, count, sec, ierr=ierr)
    call expect_rc(ierr, DARRAY_SUCCESS, 'darray_write_section')
    deallocate (sec)
    call darray_file_sync(f, ierr)
    call MPI_Barrier(MPI_COMM_WORLD)
    if (rank == 0) call check_file(2_int64, 1_int64, 1_int64, &
      int(nx - 1, int64), int(ny, int64), int(nw, int64))

    start = [3_int64, 2_int64, 1_int64]
    count = [3_int64, 3_int64, int(nz, int64)]
    allocate (sec(count(1), count(2), count(3)))
    sec = sentinel
    call darray_read_section(f, a, start, count, sec, ierr=ierr)
    call expect_rc(ierr, DARRAY_SUCCESS, 'darray_read_section')
    nbad = 0
    do k = 1, count(3)
      do j = 1, count(2)
        do i = 1, count(1)
          want = value(start(1) + i - 1, start(2) + j - 1, start(3) + k - 1)
          if (start(3) + k - 1 <= nw) want = -want
          if (sec(i, j, k) /= want) nbad = nbad + 1
        end do
      end do
    end do
    call expect(nbad == 0, 'darray_read_section: values')
    ! The same box in C order: buf(k, j, i) in Fortran terms.
    deallocate (sec)
    allocate (sec(count(3), count(2), count(1)))
    call darray_read_section(f, a, start, count, sec, DARRAY_ORDER_C, ierr)
    call expect_rc(ierr, DARRAY_SUCCESS, 'darray_read_section, C order')
    nbad = 0
    do k = 1, count(3)
      do j = 1, count(2)
        do i = 1, count(1)
          want = value(start(1) + i - 1, start(2) + j - 1, start(3) + k - 1)
          if (start(3) + k - 1 <= nw) want = -want
          if (sec(k, j, i) /= want) nbad = nbad + 1
        end do
      end do
    end do
    call expect(nbad == 0, 'darray_read_section, C order: values')
    ! A section reaching past the array: index 0 in 1-based terms.
    call darray_read_section(f, a, [0_int64, 1_int64, 1_int64], &
      [1_int64, 1_int64, 1_int64], sec, ierr=ierr)
    call expect_rc(ierr, DARRAY_EINDEX, 'darray_read_section at index 0')
    call darray_file_close(f, ierr)
    call expect_rc(ierr, DARRAY_SUCCESS, 'darray_file_close')
    if (rank == 0) then
      open (newunit=nw, file=trim(path), status='old')
      close (nw, status='delete')
    end if
  end subroutine test_sections

  ! Storage orders, the displacement, opaque elements: file offsets by
  ! closed form (an array of each process alone, given as an integer
  ! communicator).
  subroutine test_orders()
    type(darray_t) :: a
    integer :: ierr, ord
    integer(int64) :: off, esize, i, j, nbad
    integer(int64), parameter :: n1 = 3, n2 = 4
    do ord = 1, 4
      call darray_create(MPI_COMM_SELF%MPI_VAL, [n1, n2], DARRAY_OPAQUE, a, &
        ierr)
      call expect_rc(ierr, DARRAY_SUCCESS, 'darray_create (integer comm)')
      call darray_set_elem_size(a, 6_int64, ierr)
      call expect_rc(ierr, DARRAY_SUCCESS, 'darray_set_elem_size')
      call darray_set_distribution(a, [DARRAY_DIST_NONE, DARRAY_DIST_NONE], &
        ierr=ierr)
      select case (ord)
      case (1) ! the default: Fortran order
      case (2)
        call darray_set_storage_order(a, DARRAY_ORDER_C, ierr=ierr)
      case (3)
        call darray_set_storage_order(a, DARRAY_ORDER_PERM, [2, 1], ierr)
      case (4)
        call darray_set_storage_order(a, DARRAY_ORDER_PERM, [1, 2], ierr)
      end select
      call expect_rc(ierr, DARRAY_SUCCESS, 'darray_set_storage_order')
      call darray_set_displacement(a, 100_int64, ierr)
      call darray_commit(a, ierr)
      call expect_rc(ierr, DARRAY_SUCCESS, 'darray_commit (orders)')
      call darray_elem_size(a, esize, ierr)
      call expect(esize == 6, 'opaque element size')
      nbad = 0
      do j = 1, n2
        do i = 1, n1
          call darray_file_offset(a, [i, j], off, ierr)
          if (ord == 1 .or. ord == 3) then
            if (off /= 100 + 6 * ((i - 1) + n1 * (j - 1))) nbad = nbad + 1
          else
            if (off /= 100 + 6 * ((j - 1) + n2 * (i - 1))) nbad = nbad + 1
          end if
        end do
      end do
      call expect(nbad == 0, 'storage order: file offsets')
      call darray_free(a)
    end do
  end subroutine test_orders

  ! MULTIPARTITION: cells (1-based numbers and starts) by BT's formulas.
  subroutine test_multipartition()
    type(darray_t) :: a
    integer :: ierr, q, ncells, c, xyz(3), s
    integer(int64) :: lo(4), ls(4), n, size, excess, want_lo, want_len
    q = nint(sqrt(real(nprocs)))
    if (q * q /= nprocs) return
    n = 7
    call darray_create(MPI_COMM_WORLD, [5_int64, n, n, n], DARRAY_DOUBLE, a, &
      ierr)
    call darray_set_distribution(a, [DARRAY_DIST_NONE, &
      DARRAY_DIST_MULTIPARTITION, DARRAY_DIST_MULTIPARTITION, &
      DARRAY_DIST_MULTIPARTITION], ierr=ierr)
    call darray_commit(a, ierr)
    call expect_rc(ierr, DARRAY_SUCCESS, 'MULTIPARTITION commit')
    call darray_num_cells(a, ncells, ierr)
    call expect(ncells == q, 'MULTIPARTITION: q cells')
    size = n / q
    excess = mod(n, int(q, int64))
    do c = 1, ncells
      xyz = [modulo(mod(rank, q) + c - 1, q), modulo(rank / q - (c - 1), q), &
        c - 1]
      call darray_local_start(a, c, lo, ierr)
      call darray_local_shape(a, c, ls, ierr)
      do s = 1, 3
        if (xyz(s) < excess) then
          want_len = size + 1
          want_lo = xyz(s) * (size + 1)
        else
          want_len = size
          want_lo = excess * (size + 1) + (xyz(s) - excess) * size
        end if
        call expect(lo(s + 1) == want_lo + 1 .and. ls(s + 1) == want_len, &
          'MULTIPARTITION cell start and shape')
      end do
    end do
    call darray_free(a)
  end subroutine test_multipartition

  ! Codes returned through ierr.
  subroutine test_errors()
    type(darray_t) :: a
    type(darray_file_t) :: f
    integer :: ierr, nobuf(16)
    integer(int64) :: ls(2)
    call darray_create(MPI_COMM_WORLD, [4_int64, 4_int64], DARRAY_INT32, a, &
      ierr)
    call darray_set_distribution(a, [DARRAY_DIST_BLOCK], ierr=ierr)
    call expect_rc(ierr, DARRAY_EINVAL, 'dist of the wrong length')
    call darray_set_distribution(a, [DARRAY_DIST_BLOCK, 99], ierr=ierr)
    call expect_rc(ierr, DARRAY_EDIST, 'unknown distribution')
    call expect(len(darray_errmsg(a)) > 0, 'darray_errmsg after EDIST')
    call darray_set_displacement(a, -1_int64, ierr)
    call expect_rc(ierr, DARRAY_EDISP, 'negative displacement')
    call darray_local_shape(a, 1, ls, ierr)
    call expect_rc(ierr, DARRAY_ESTATE, 'query before commit')
    call darray_commit(a, ierr)
    call darray_local_shape(a, 2, ls, ierr)
    call expect_rc(ierr, DARRAY_EINDEX, 'cell 2 of a BLOCK array')
    call darray_local_shape(a, 0, ls, ierr)
    call expect_rc(ierr, DARRAY_EINDEX, 'cell 0 (cells are 1-based)')
    call darray_set_grid(a, [1, 1], ierr)
    call expect_rc(ierr, DARRAY_ESTATE, 'darray_set_grid after commit')
    call darray_file_open(MPI_COMM_WORLD, 'no/such/dir/file', &
      DARRAY_MODE_RDONLY, f, ierr=ierr)
    call expect_rc(ierr, DARRAY_ENOENT, 'darray_file_open of a missing file')
    ! The rank that failed names the path; the others say where it failed.
    call expect(index(darray_errmsg(), 'no/such/dir/file') > 0 .or. &
      (rank > 0 .and. index(darray_errmsg(), 'rank 0') > 0), &
      'darray_errmsg() names the path: "' // darray_errmsg() // '"')
    call darray_file_open(MPI_COMM_WORLD, path2, DARRAY_MODE_RDWR + &
      DARRAY_MODE_CREATE + DARRAY_MODE_TRUNC, f, ierr=ierr)
    ! Every process's part lies past the end of the empty file (nobuf holds
    ! any process's 4 x 4 / P elements): DARRAY_EEOF on every process.
    call darray_read(f, a, nobuf, ierr)
    call expect_rc(ierr, DARRAY_EEOF, 'darray_read of an empty file')
    call expect(len(darray_file_errmsg(f)) > 0, 'darray_file_errmsg')
    call darray_file_close(f, ierr)
    call darray_free(a)
    if (rank == 0) then
      open (newunit=ierr, file=trim(path2), status='old')
      close (ierr, status='delete')
    end if
  end subroutine test_errors

  ! The advisor: rows (BLOCK on dimension 1, weight 3) and columns (BLOCK
  ! on dimension 2, weight 1) of a 2-D array. Rows conform to an order with
  ! dimension 1 slowest: perm = [1, 2].
  subroutine test_advisor()
    type(darray_consumer_t) :: c(2)
    type(darray_advice_t) :: adv
    type(darray_consumer_verdict_t) :: v(2)
    integer :: ierr, u, lines, ios
    character(len=200) :: line
    c(1)%name = 'rows'
    c(1)%weight = 3
    c(1)%nprocs = 4
    c(1)%dist(1:2) = [DARRAY_DIST_BLOCK, DARRAY_DIST_NONE]
    c(2)%name = 'cols'
    c(2)%weight = 1
    c(2)%nprocs = 4
    c(2)%dist(1:2) = [DARRAY_DIST_NONE, DARRAY_DIST_BLOCK]
    call darray_advise_storage([64_int64, 64_int64], 8_int64, c, adv, v, ierr)
    call expect_rc(ierr, DARRAY_SUCCESS, 'darray_advise_storage')
    call expect(all(adv%perm(1:2) == [1, 2]) .and. adv%total_weight == 4 &
      .and. adv%conforming_weight == 3 .and. adv%all_orders, &
      'darray_advise_storage: rows win')
    call expect(v(1)%verdict == DARRAY_VERDICT_CONFORMING .and. &
      v(2)%verdict == DARRAY_VERDICT_INTERLEAVED .and. v(1)%psizes(1) == 4, &
      'darray_advise_storage: verdicts')
    call darray_advise_order([64_int64, 64_int64], 8_int64, c, [2, 1], adv, &
      v, ierr)
    call expect(ierr == 0 .and. all(adv%perm(1:2) == [2, 1]) .and. &
      adv%conforming_weight == 1 .and. &
      v(2)%verdict == DARRAY_VERDICT_CONFORMING, 'darray_advise_order')
    call darray_advise_order([64_int64, 64_int64], 8_int64, c, [1, 1], adv, &
      ierr=ierr)
    call expect_rc(ierr, DARRAY_EORDER, 'darray_advise_order, bad perm')
    c(2)%weight = -1
    call darray_advise_storage([64_int64, 64_int64], 8_int64, c, adv, &
      ierr=ierr)
    call expect_rc(ierr, DARRAY_EINVAL, 'darray_advise_storage, weight < 0')
    call expect(index(darray_errmsg(), 'cols') > 0, &
      'the advisor''s message names the consumer: ' // darray_errmsg())
    c(2)%weight = 1
    open (newunit=u, status='scratch', action='readwrite')
    call darray_advise_report([64_int64, 64_int64], 8_int64, c, u, ierr)
    call expect_rc(ierr, DARRAY_SUCCESS, 'darray_advise_report')
    rewind (u)
    lines = 0
    ios = 0
    do while (ios == 0)
      read (u, '(a)', iostat=ios) line
      if (ios == 0) lines = lines + 1
      if (ios == 0 .and. index(line, 'rows') > 0) lines = lines + 1000
    end do
    close (u)
    call expect(lines > 1000, 'darray_advise_report names the consumers')
  end subroutine test_advisor

  ! A whole-array write planned on paper for nprocs virtual processes,
  ! against the same write made by the real processes: the strategy the
  ! planner marks chosen is the one the write used, and its counts equal
  ! the write's counters summed over the processes (darray_map=enable: on
  ! paper too the processes share one node, as they do here).
  subroutine test_paper()
    type(darray_t) :: v, a
    type(darray_file_t) :: f
    type(darray_plan_row_t) :: rows(8)
    type(darray_stats_t) :: st
    type(darray_stats_summary_t) :: s
    type(MPI_Info) :: info
    integer :: ierr, n, i, k
    real(real64), allocatable :: buf(:)
    integer(int64) :: cnt
    integer(int64), parameter :: g(3) = [int(nx, int64), int(ny, int64), &
      int(nz, int64)]
    call darray_create_virtual(nprocs, g, DARRAY_DOUBLE, v, ierr)
    call expect_rc(ierr, DARRAY_SUCCESS, 'darray_create_virtual')
    call darray_commit(v, ierr)
    call expect_rc(ierr, DARRAY_SUCCESS, 'darray_commit (virtual)')
    call MPI_Info_create(info)
    call MPI_Info_set(info, 'cb_buffer_size', '256')
    call MPI_Info_set(info, 'darray_cb_cycle_ns', '20000')
    call MPI_Info_set(info, 'darray_map', 'enable')
    call darray_plan_virtual(v, .true., rows, n, info%MPI_VAL, ierr)
    call expect_rc(ierr, DARRAY_SUCCESS, 'darray_plan_virtual')
    call darray_create(MPI_COMM_WORLD, g, DARRAY_DOUBLE, a, ierr)
    call darray_commit(a, ierr)
    call darray_local_count(a, cnt, ierr)
    allocate (buf(max(1_int64, cnt)))
    buf = 1
    call darray_file_open(MPI_COMM_WORLD, trim(path) // '.paper', &
      DARRAY_MODE_RDWR + DARRAY_MODE_CREATE, f, info, ierr)
    call darray_write(f, a, buf, ierr)
    call expect_rc(ierr, DARRAY_SUCCESS, 'darray_write (paper oracle)')
    call darray_file_get_stats(f, st, ierr)
    call darray_file_stats_summary(f, s, ierr)
    k = 0
    do i = 1, n
      if (rows(i)%chosen) k = i
    end do
    call expect(k > 0, 'darray_plan_virtual: a strategy is chosen')
    if (k > 0) then
      call expect(rows(k)%strategy == st%strategy, 'darray_plan_virtual: ' &
        // trim(rows(k)%strategy) // ' chosen, the write used ' // &
        trim(st%strategy))
      call expect(rows(k)%file_bytes_max == s%bytes_written_max .and. &
        rows(k)%file_calls_sum == s%write_calls_sum .and. &
        rows(k)%sent_bytes_sum == s%bytes_exchanged_sum .and. &
        rows(k)%cycles == s%cycles_max, &
        'darray_plan_virtual: counts equal the write''s counters')
    end if
    call darray_plan_virtual(v, .true., rows(1:1), n, ierr=ierr)
    call expect_rc(ierr, DARRAY_EINVAL, 'darray_plan_virtual, one row')
    call darray_plan_virtual(a, .true., rows, n, ierr=ierr)
    call expect_rc(ierr, DARRAY_ECOMM, 'darray_plan_virtual, a real array')
    call darray_file_close(f, ierr)
    if (rank == 0) then
      open (newunit=i, file=trim(path) // '.paper')
      close (i, status='delete')
    end if
    call MPI_Info_free(info)
    call darray_free(a, ierr)
    call darray_free(v, ierr)
  end subroutine test_paper

  ! Every hint in effect as an MPI_Info, through both handle kinds: each key
  ! has the value darray_file_get_hint gives, the caller's cb_buffer_size
  ! among them; a null file gives DARRAY_EBADHANDLE and MPI_INFO_NULL.
  subroutine test_get_info()
    type(darray_file_t) :: f
    type(MPI_Info) :: info, got
    integer :: ierr, h, form, nkeys, n
    logical :: flag
    character(len=MPI_MAX_INFO_KEY) :: key
    character(len=64) :: v, hint

    call MPI_Info_create(info)
    call MPI_Info_set(info, 'cb_buffer_size', '2048')
    call darray_file_open(MPI_COMM_WORLD, path2, DARRAY_MODE_RDWR + &
      DARRAY_MODE_CREATE + DARRAY_MODE_TRUNC, f, info, ierr)
    call MPI_Info_free(info)
    call expect_rc(ierr, DARRAY_SUCCESS, 'darray_file_open (get_info)')
    do form = 1, 2
      if (form == 1) then
        call darray_file_get_info(f, got, ierr)
      else
        call darray_file_get_info(f, h, ierr)
        got%MPI_VAL = h
      end if
      call expect_rc(ierr, DARRAY_SUCCESS, 'darray_file_get_info')
      if (ierr /= DARRAY_SUCCESS) cycle
      call MPI_Info_get(got, 'cb_buffer_size', len(v), v, flag)
      call expect(flag .and. v == '2048', 'get_info: cb_buffer_size = "' // &
        trim(v) // '"')
      call MPI_Info_get_nkeys(got, nkeys)
      call expect(nkeys > 1, 'get_info: every hint is a key')
      do n = 0, nkeys - 1
        call MPI_Info_get_nthkey(got, n, key)
        call MPI_Info_get(got, key, len(v), v, flag)
        call darray_file_get_hint(f, key, hint, ierr)
        call expect(flag .and. ierr == 0 .and. v == hint, 'get_info: ' // &
          trim(key) // ' = "' // trim(v) // '", get_hint "' // trim(hint) &
          // '"')
      end do
      call MPI_Info_free(got)
    end do
    call darray_file_close(f, ierr)
    call expect_rc(ierr, DARRAY_SUCCESS, 'darray_file_close (get_info)')
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    if (rank == 0) then ! the build tree is left as it was (distcheck)
      open (newunit=n, file=trim(path2), status='old')
      close (n, status='delete')
    end if
    call darray_file_get_info(f, got, ierr)
    call expect(ierr == DARRAY_EBADHANDLE .and. got == MPI_INFO_NULL, &
      'darray_file_get_info of a null file: ' // darray_err_name(ierr))
    call darray_file_get_info(f, h, ierr)
    call expect(ierr == DARRAY_EBADHANDLE .and. &
      h == MPI_INFO_NULL%MPI_VAL, 'darray_file_get_info (integer), null file')
  end subroutine test_get_info

  ! darray_file_delete: a subfile set of 2 made by an open (the descriptor
  ! and both subfiles, named PATH.sub<j>of2 here), deleted whole by rank 0
  ! with an info that says posix (ignored); a second delete finds nothing
  ! (DARRAY_ENOENT, the message naming the path).
  subroutine test_delete()
    type(darray_file_t) :: f
    type(MPI_Info) :: info
    integer :: ierr, j
    character(len=300) :: p, names(0:2)
    logical :: there(0:2)

    p = 'test_fortran_api.set'
    names(0) = p
    names(1) = trim(p) // '.sub0of2'
    names(2) = trim(p) // '.sub1of2'
    call MPI_Info_create(info)
    call MPI_Info_set(info, 'darray_backend', 'subfiles')
    call MPI_Info_set(info, 'striping_unit', '64')
    call MPI_Info_set(info, 'striping_factor', '2')
    call darray_file_open(MPI_COMM_WORLD, p, DARRAY_MODE_RDWR + &
      DARRAY_MODE_CREATE + DARRAY_MODE_TRUNC, f, info, ierr)
    call expect_rc(ierr, DARRAY_SUCCESS, 'darray_file_open (subfile set)')
    call darray_file_close(f, ierr)
    call expect_rc(ierr, DARRAY_SUCCESS, 'darray_file_close (subfile set)')
    call MPI_Info_set(info, 'darray_backend', 'posix')
    if (rank == 0) then
      do j = 0, 2
        inquire (file=trim(names(j)), exist=there(j))
      end do
      call expect(all(there), 'the set is there before darray_file_delete')
      call darray_file_delete(p, info%MPI_VAL, ierr)
      call expect_rc(ierr, DARRAY_SUCCESS, 'darray_file_delete (set)')
      do j = 0, 2
        inquire (file=trim(names(j)), exist=there(j))
      end do
      call expect(.not. any(there), 'darray_file_delete left a file')
      call darray_file_delete(p, ierr=ierr)
      call expect_rc(ierr, DARRAY_ENOENT, 'darray_file_delete (again)')
      call expect(index(darray_errmsg(), trim(p)) > 0, &
        'darray_file_delete: message "' // darray_errmsg() // '"')
    end if
    call MPI_Info_free(info)
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
  end subroutine test_delete

  ! Datasets. A .npz with two members written from Fortran: u, the 3-D
  ! closed form in real(real64) (Fortran order, BLOCK over dimension 3),
  ! and v(p, q) = p + 10 q in integer(int32), stored in C order. Every
  ! process checks what darray_inquire says of them against the
  ! descriptions, rereads u under another distribution, and darray_verify
  ! passes; rank 0 has NumPy load the file and compare every element with
  ! the closed forms, and zlib compute the CRC-32 that darray_inquire
  ! reports. One flipped byte then makes darray_verify fail on every rank.
  ! A .npy file holds u alone, its name ignored.
  subroutine test_dataset()
    character(len=*), parameter :: npz = 'test_fortran_api.npz', &
      npy = 'test_fortran_api.npy'
    integer, parameter :: mx = 6, my = 4
    integer, parameter :: wmode = DARRAY_MODE_RDWR + DARRAY_MODE_CREATE + &
      DARRAY_MODE_TRUNC
    type(darray_t) :: a, b, c
    type(darray_file_t) :: f
    type(darray_member_info_t) :: m
    integer :: ierr, n, un
    integer(int64) :: lo(3), ls(3), blo(2), bls(2), clo(3), cls(3), i, j, k
    integer(int64) :: crc_u, off_u
    real(real64), allocatable :: u(:, :, :), w(:, :, :)
    integer(int32), allocatable :: v(:, :)
    character(len=1) :: byte

    call darray_create(MPI_COMM_WORLD, [int(nx, int64), int(ny, int64), &
      int(nz, int64)], DARRAY_DOUBLE, a, ierr)
    call darray_set_distribution(a, [DARRAY_DIST_NONE, DARRAY_DIST_NONE, &
      DARRAY_DIST_BLOCK], ierr=ierr)
    call darray_commit(a, ierr)
    call expect_rc(ierr, DARRAY_SUCCESS, 'darray_commit (dataset u)')
    call darray_local_start(a, 1, lo)
    call darray_local_shape(a, 1, ls)
    allocate (u(ls(1), ls(2), ls(3)))
    do k = 1, ls(3)
      do j = 1, ls(2)
        do i = 1, ls(1)
          u(i, j, k) = value(lo(1) + i - 1, lo(2) + j - 1, lo(3) + k - 1)
        end do
      end do
    end do
    call darray_create(MPI_COMM_WORLD, [int(mx, int64), int(my, int64)], &
      DARRAY_INT32, b, ierr)
    call darray_set_distribution(b, [DARRAY_DIST_BLOCK, DARRAY_DIST_NONE], &
      ierr=ierr)
    call darray_set_storage_order(b, DARRAY_ORDER_C, ierr=ierr)
    call darray_commit(b, ierr)
    call expect_rc(ierr, DARRAY_SUCCESS, 'darray_commit (dataset v)')
    call darray_local_start(b, 1, blo)
    call darray_local_shape(b, 1, bls)
    allocate (v(bls(1), bls(2)))
    do j = 1, bls(2)
      do i = 1, bls(1)
        v(i, j) = int(blo(1) + i - 1 + 10 * (blo(2) + j - 1), int32)
      end do
    end do

    ! Written: the integer communicator.
    call darray_dataset_open(MPI_COMM_WORLD%MPI_VAL, npz, wmode, f, ierr=ierr)
    call expect_rc(ierr, DARRAY_SUCCESS, 'darray_dataset_open (write)')
    call darray_num_members(f, n, ierr)
    call expect(ierr == 0 .and. n == 0, 'darray_num_members before define')
    call darray_define(f, 'u  ', a, ierr)
    call expect_rc(ierr, DARRAY_SUCCESS, 'darray_define u')
    call darray_define(f, 'v', b, ierr)
    call expect_rc(ierr, DARRAY_SUCCESS, 'darray_define v')
    call darray_define(f, 'u', b, ierr)
    call expect_rc(ierr, DARRAY_EINVAL, 'darray_define of a name defined')
    call darray_num_members(f, n, ierr)
    call expect(ierr == 0 .and. n == 2, 'darray_num_members after define')
    call darray_verify(f, ierr)
    call expect_rc(ierr, DARRAY_ESTATE, 'darray_verify of a file written')
    call darray_write(f, a, u, ierr)
    call expect_rc(ierr, DARRAY_SUCCESS, 'darray_write u (dataset)')
    call darray_write(f, b, v, ierr)
    call expect_rc(ierr, DARRAY_SUCCESS, 'darray_write v (dataset)')
    call darray_file_close(f, ierr)
    call expect_rc(ierr, DARRAY_SUCCESS, 'darray_file_close (dataset)')

    ! Read: the mpi_f08 communicator.
    call darray_dataset_open(MPI_COMM_WORLD, npz, DARRAY_MODE_RDONLY, f, &
      ierr=ierr)
    call expect_rc(ierr, DARRAY_SUCCESS, 'darray_dataset_open (read)')
    call darray_num_members(f, n, ierr)
    call expect(ierr == 0 .and. n == 2, 'darray_num_members (read)')
    call darray_inquire(f, 1, m, ierr)
    call expect(ierr == 0 .and. m%name == 'u' .and. m%type == DARRAY_DOUBLE &
      .and. m%elem_size == 8 .and. m%ndims == 3 .and. &
      all(m%gsizes(1:3) == [nx, ny, nz]) .and. &
      m%order == DARRAY_ORDER_FORTRAN .and. all(m%perm(1:3) == [3, 2, 1]) &
      .and. m%has_crc .and. mod(m%offset, 4096_int64) == 0 .and. &
      m%bytes == 8 * nx * ny * nz, 'darray_inquire u: "' // trim(m%name) &
      // '"')
    crc_u = m%crc32
    off_u = m%offset
    call darray_inquire(f, 2, m, ierr)
    call expect(ierr == 0 .and. m%name == 'v' .and. m%type == DARRAY_INT32 &
      .and. m%elem_size == 4 .and. m%ndims == 2 .and. &
      all(m%gsizes(1:2) == [mx, my]) .and. m%order == DARRAY_ORDER_C .and. &
      all(m%perm(1:2) == [1, 2]) .and. m%has_crc .and. &
      m%offset > off_u .and. m%bytes == 4 * mx * my, 'darray_inquire v')
    call darray_inquire(f, 3, m, ierr)
    call expect_rc(ierr, DARRAY_EINDEX, 'darray_inquire 3 of 2')
    call darray_inquire(f, 0, m, ierr)
    call expect_rc(ierr, DARRAY_EINDEX, 'darray_inquire 0 (1-based)')
    call darray_verify(f, ierr)
    call expect_rc(ierr, DARRAY_SUCCESS, 'darray_verify')
    ! u under another distribution: BLOCK over dimension 1.
    call darray_create(MPI_COMM_WORLD, [int(nx, int64), int(ny, int64), &
      int(nz, int64)], DARRAY_DOUBLE, c, ierr)
    call darray_set_distribution(c, [DARRAY_DIST_BLOCK, DARRAY_DIST_NONE, &
      DARRAY_DIST_NONE], ierr=ierr)
    call darray_set_memory_layout(c, ghost=[1_int64, 1_int64, 1_int64], &
      ierr=ierr)
    call darray_commit(c, ierr)
    call darray_define(f, 'u', c, ierr)
    call expect_rc(ierr, DARRAY_SUCCESS, 'darray_define u (read)')
    call darray_local_start(c, 1, clo)
    call darray_local_shape(c, 1, cls)
    allocate (w(0:cls(1) + 1, 0:cls(2) + 1, 0:cls(3) + 1))
    w = sentinel
    call darray_read(f, c, w, ierr)
    call expect_rc(ierr, DARRAY_SUCCESS, 'darray_read u (dataset)')
    call check_piece(w, clo, cls, 'darray_read of a dataset member')
    call darray_file_close(f, ierr)
    call darray_free(c)

    if (rank == 0) call numpy_check(npz, crc_u)
    ! One flipped byte of u's data: every rank is told.
    call MPI_Barrier(MPI_COMM_WORLD)
    if (rank == 0) then
      open (newunit=un, file=npz, access='stream', form='unformatted', &
        action='readwrite', status='old')
      read (un, pos=off_u + 17) byte
      write (un, pos=off_u + 17) char(ieor(ichar(byte), 1))
      close (un)
    end if
    call MPI_Barrier(MPI_COMM_WORLD)
    call darray_dataset_open(MPI_COMM_WORLD, npz, DARRAY_MODE_RDONLY, f, &
      ierr=ierr)
    call darray_verify(f, ierr)
    call expect_rc(ierr, DARRAY_ECRC, 'darray_verify of a damaged member')
    call darray_file_close(f)

    ! .npy: one array, no name, no CRC.
    call darray_dataset_open(MPI_COMM_WORLD, npy, wmode, f, ierr=ierr)
    call darray_define(f, '', a, ierr)
    call expect_rc(ierr, DARRAY_SUCCESS, 'darray_define (.npy)')
    call darray_write(f, a, u, ierr)
    call expect_rc(ierr, DARRAY_SUCCESS, 'darray_write (.npy)')
    call darray_file_close(f, ierr)
    call darray_dataset_open(MPI_COMM_WORLD, npy, DARRAY_MODE_RDONLY, f, &
      ierr=ierr)
    call darray_num_members(f, n, ierr)
    call darray_inquire(f, 1, m, ierr)
    call expect(n == 1 .and. ierr == 0 .and. m%name == '' .and. &
      .not. m%has_crc .and. m%crc32 == 0 .and. all(m%gsizes(1:3) == &
      [nx, ny, nz]), 'darray_inquire (.npy)')
    u = sentinel
    call darray_define(f, '', a, ierr)
    call darray_read(f, a, u, ierr)
    call expect_rc(ierr, DARRAY_SUCCESS, 'darray_read (.npy)')
    n = 0
    do k = 1, ls(3)
      do j = 1, ls(2)
        do i = 1, ls(1)
          if (u(i, j, k) /= value(lo(1) + i - 1, lo(2) + j - 1, &
            lo(3) + k - 1)) n = n + 1
        end do
      end do
    end do
    call expect(n == 0, 'darray_read (.npy): the closed form')
    call darray_verify(f, ierr)
    call expect_rc(ierr, DARRAY_SUCCESS, 'darray_verify (.npy: no CRC)')
    call darray_file_close(f)
    if (rank == 0) call numpy_check(npy, 0_int64)
    call MPI_Barrier(MPI_COMM_WORLD)
    if (rank == 0) then
      open (newunit=un, file=npz, status='old')
      close (un, status='delete')
      open (newunit=un, file=npy, status='old')
      close (un, status='delete')
    end if
    call darray_free(a)
    call darray_free(b)
  end subroutine test_dataset

  ! Rank 0: /usr/bin/python3 loads a dataset of test_dataset with NumPy and
  ! compares every element with the closed forms (a .npz: members u and v,
  ! and zlib's CRC-32 of u.npy must be crc; a .npy: u). Skipped, with a
  ! note, when there is no python3 with NumPy.
  subroutine numpy_check(file, crc)
    character(*), intent(in) :: file
    integer(int64), intent(in) :: crc
    character(len=*), parameter :: py = 'test_fortran_api_check.py'
    character(len=80), parameter :: script(*) = [character(len=80) :: &
      'import sys, zipfile, zlib', &
      'import numpy as np', &
      'path, crc = sys.argv[1], int(sys.argv[2])', &
      'i, j, k = np.meshgrid(np.arange(1, 8), np.arange(1, 6),', &
      '                      np.arange(1, 5), indexing="ij")', &
      'want = {"u": (i + 100 * j + 10000 * k).astype("<f8")}', &
      'p, q = np.meshgrid(np.arange(1, 7), np.arange(1, 5), indexing="ij")', &
      'want["v"] = (p + 10 * q).astype("<i4")', &
      'if path.endswith(".npz"):', &
      '    z = np.load(path)', &
      '    got = {n: z[n] for n in z.files}', &
      '    zf = zipfile.ZipFile(path)', &
      '    ok = zf.testzip() is None and zlib.crc32(zf.read("u.npy")) == crc', &
      'else:', &
      '    got, ok = {"u": np.load(path)}, True', &
      '    del want["v"]', &
      'ok = ok and sorted(got) == sorted(want)', &
      'for n in want:', &
      '    g, w = got.get(n), want[n]', &
      '    ok = ok and (g is not None and g.dtype == w.dtype and', &
      '                 g.shape == w.shape and np.array_equal(g, w))', &
      'print("numpy", path, "ok" if ok else "MISMATCH")', &
      'sys.exit(0 if ok else 1)']
    integer :: un, st, n
    character(len=32) :: c
    call execute_command_line('/usr/bin/python3 -c "import numpy" ' // &
      '> /dev/null 2>&1', exitstat=st)
    if (st /= 0) then
      print '(a)', 'test_fortran_api: skipped the NumPy check of ' // file &
        // ': no /usr/bin/python3 with numpy'
      return
    end if
    open (newunit=un, file=py, status='replace', action='write')
    do n = 1, size(script)
      write (un, '(a)') trim(script(n))
    end do
    close (un)
    write (c, '(i0)') crc
    call execute_command_line('/usr/bin/python3 ' // py // ' ' // file // &
      ' ' // trim(c), exitstat=st)
    call expect(st == 0, 'NumPy reads ' // file // ' as written')
    open (newunit=un, file=py, status='old')
    close (un, status='delete')
  end subroutine numpy_check

end program test_fortran_api
