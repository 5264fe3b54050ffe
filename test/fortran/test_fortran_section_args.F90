! SPDX-License-Identifier: BSD-3-Clause
! Copyright (c) 2026 the darrayio authors (AUTHORS)
!
! test_fortran_section_args.F90 - a bad start or count on one process only,
! from Fortran (issue 39, item 1): the module's own refusal (arrays of the
! wrong length) and the library's (values out of range, near 2^63) end in
! the call's agreement, never a hang.
!
! The array: nx x ny int32 (Fortran order, BLOCK columns), in a file first
! written with element (i, j) = i + 100 j by stream I/O on rank 0. Each
! process's good box is one column of its own. The last process passes,
! in turn, a start of 3 entries, a count of 1 entry (DARRAY_EINVAL, the
! message naming start or count), a start of 0 and of -huge - 1, a
! start of huge, a count past the end and a count of huge (DARRAY_EINDEX),
! to darray_write_section, darray_read_section, and the requests
! darray_iwrite_section, darray_iread_section and darray_bwrite_section
! (completed by darray_wait), under darray_async = thread, files, none.
! Every process must return the same code, the last one a message naming
! the argument, the others "failed on rank"; the file must still hold the
! closed form (rank 0 reads it by stream I/O); and the next call on the
! file (every process's column written with new values and read back)
! works. A hang fails the test: alarm(60) ends the run with SIGALRM, well
! before the launcher's limit.
program test_fortran_section_args
  use, intrinsic :: iso_fortran_env, only: int32, int64, error_unit
  use, intrinsic :: iso_c_binding, only: c_int
  use mpi_f08
  use darrayio
  implicit none

  interface
    function alarm(seconds) bind(c, name="alarm")
      import :: c_int
      integer(c_int), value :: seconds
      integer(c_int) :: alarm
    end function alarm
  end interface

  integer, parameter :: nx = 6, ny = 5, ncases = 7, ncalls = 5
  character(len=*), parameter :: path = 'test_fortran_section_args.dat'
  character(len=8), parameter :: modes(3) = [character(len=8) :: &
    'thread', 'files', 'none']
  character(len=24), parameter :: call_names(ncalls) = [character(len=24) :: &
    'darray_write_section', 'darray_read_section', 'darray_iwrite_section', &
    'darray_iread_section', 'darray_bwrite_section']
  integer :: rank, nprocs, bad, provided, m, k, w, salt

  call MPI_Init_thread(MPI_THREAD_MULTIPLE, provided)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  bad = 0
  if (alarm(60_c_int) < 0) bad = bad + 1
  if (nprocs < 2) then
    if (rank == 0) print '(a)', 'test_fortran_section_args: SKIP ' // &
      '(a bad argument on one process of several)'
    call MPI_Finalize()
    stop 77
  end if

  salt = 0
  do m = 1, size(modes)
    call run(trim(modes(m)))
  end do

  call MPI_Allreduce(MPI_IN_PLACE, bad, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0) then
    if (bad == 0) then
      print '(a,i0,a)', 'test_fortran_section_args: P=', nprocs, ': OK'
    else
      print '(a,i0,a)', 'test_fortran_section_args: ', bad, ' checks FAILED'
    end if
  end if
  call MPI_Finalize()
  if (bad /= 0) error stop 1

contains

  subroutine expect(cond, what)
    logical, intent(in) :: cond
    character(*), intent(in) :: what
    if (cond) return
    bad = bad + 1
    write (error_unit, '(a,i0,a)') 'test_fortran_section_args: rank ', &
      rank, ': FAILED: ' // what
  end subroutine expect

  ! What column j holds: the closed form, or (once written) salt s.
  integer(int32) function val(i, j, s)
    integer(int64), intent(in) :: i, j
    integer, intent(in) :: s
    val = int(i + 100 * j + 10000 * s, int32)
  end function val

  ! Rank 0: the file holds column j of salt cols(j).
  subroutine check_file(cols, what)
    integer, intent(in) :: cols(ny)
    character(*), intent(in) :: what
    integer :: u, ios
    integer(int64) :: i, j, nbad, fsize
    integer(int32) :: v
    call MPI_Barrier(MPI_COMM_WORLD)
    if (rank == 0) then
      open (newunit=u, file=path, access='stream', form='unformatted', &
        action='read', status='old', iostat=ios)
      call expect(ios == 0, what // ': open the file for checking')
      if (ios == 0) then
        inquire (unit=u, size=fsize)
        call expect(fsize == 4 * nx * ny, what // ': file size')
        nbad = 0
        do j = 1, ny
          do i = 1, nx
            read (u, pos=1 + 4 * ((i - 1) + nx * (j - 1))) v
            if (v /= val(i, j, cols(j))) nbad = nbad + 1
          end do
        end do
        close (u)
        call expect(nbad == 0, what // ': the file is unchanged')
      end if
    end if
    call MPI_Barrier(MPI_COMM_WORLD)
  end subroutine check_file

  ! The last process's bad start and count of case k (good ones elsewhere),
  ! the code every process expects and what the message names.
  subroutine args(k, st, ct, want, names)
    integer, intent(in) :: k
    integer(int64), allocatable, intent(out) :: st(:), ct(:)
    integer, intent(out) :: want
    character(len=:), allocatable, intent(out) :: names
    integer(int64) :: col
    logical :: me
    col = int(mod(rank, ny) + 1, int64)
    st = [1_int64, col]
    ct = [int(nx, int64), 1_int64]
    me = rank == nprocs - 1
    want = DARRAY_EINDEX
    names = 'start('
    select case (k)
    case (1)
      if (me) st = [1_int64, col, 1_int64]
      want = DARRAY_EINVAL
      names = 'start has 3 entries'
    case (2)
      if (me) ct = [int(nx, int64)]
      want = DARRAY_EINVAL
      names = 'count has 1 entries'
    case (3)
      if (me) st(1) = 0
    case (4)
      if (me) st(2) = -huge(st) - 1
    case (5)
      if (me) st(1) = huge(st)
    case (6)
      if (me) ct(1) = nx + 1
      names = 'count('
    case default
      if (me) ct(2) = huge(ct)
      names = 'count('
    end select
  end subroutine args

  subroutine one_call(f, a, w, st, ct, buf, ierr)
    type(darray_file_t), intent(in) :: f
    type(darray_t), intent(in) :: a
    integer, intent(in) :: w
    integer(int64), intent(in) :: st(:), ct(:)
    integer(int32), intent(inout), asynchronous, target :: buf(:)
    integer, intent(out) :: ierr
    integer(int64) :: req
    select case (w)
    case (1)
      call darray_write_section(f, a, st, ct, buf, ierr=ierr)
    case (2)
      call darray_read_section(f, a, st, ct, buf, ierr=ierr)
    case (3)
      call darray_iwrite_section(f, a, st, ct, buf, req, ierr=ierr)
    case (4)
      call darray_iread_section(f, a, st, ct, buf, req, ierr=ierr)
    case default
      call darray_bwrite_section(f, a, st, ct, buf, req, ierr=ierr)
    end select
    if (w >= 3 .and. ierr == DARRAY_SUCCESS) call darray_wait(f, req, ierr)
  end subroutine one_call

  subroutine run(mode)
    character(*), intent(in) :: mode
    type(darray_t) :: a
    type(darray_file_t) :: f
    type(MPI_Info) :: info
    integer :: ierr, u, want, lo, hi, cols(ny), r
    integer(int64) :: i, j, col
    integer(int64), allocatable :: st(:), ct(:)
    integer(int32), allocatable, asynchronous, target :: buf(:), back(:)
    integer(int32) :: img(nx, ny)
    character(len=:), allocatable :: names, what, msg

    cols = 0
    if (rank == 0) then
      do j = 1, ny
        do i = 1, nx
          img(i, j) = val(i, j, 0)
        end do
      end do
      open (newunit=u, file=path, access='stream', form='unformatted', &
        action='write', status='replace')
      write (u) img
      close (u)
    end if
    call MPI_Barrier(MPI_COMM_WORLD)
    call darray_create(MPI_COMM_WORLD, [int(nx, int64), int(ny, int64)], &
      DARRAY_INT32, a, ierr)
    call darray_set_distribution(a, [DARRAY_DIST_NONE, DARRAY_DIST_BLOCK], &
      ierr=ierr)
    call darray_commit(a, ierr)
    call expect(ierr == DARRAY_SUCCESS, mode // ': darray_commit')
    call MPI_Info_create(info)
    call MPI_Info_set(info, 'darray_async', mode)
    call darray_file_open(MPI_COMM_WORLD, path, DARRAY_MODE_RDWR, f, info, &
      ierr)
    call MPI_Info_free(info)
    call expect(ierr == DARRAY_SUCCESS, mode // ': darray_file_open')
    ! one element more than a column: case 6's count of nx + 1 must meet
    ! the index check, not the buffer-size check darray_bwrite_section makes
    ! before it copies
    allocate (buf(nx + 1), back(nx + 1))
    col = int(mod(rank, ny) + 1, int64)
    do k = 1, ncases
      do w = 1, ncalls
        what = mode // ', ' // trim(call_names(w)) // ', case ' // &
          achar(48 + k)
        call args(k, st, ct, want, names)
        buf = -1
        call one_call(f, a, w, st, ct, buf, ierr)
        call expect(ierr == want, what // ': got ' // darray_err_name(ierr) &
          // ', expected ' // darray_err_name(want))
        lo = ierr
        hi = ierr
        call MPI_Allreduce(MPI_IN_PLACE, lo, 1, MPI_INTEGER, MPI_MIN, &
          MPI_COMM_WORLD)
        call MPI_Allreduce(MPI_IN_PLACE, hi, 1, MPI_INTEGER, MPI_MAX, &
          MPI_COMM_WORLD)
        call expect(lo == hi, what // ': the same code on every process')
        msg = darray_file_errmsg(f)
        call expect(index(msg, names) > 0, what // ': message "' // msg // &
          '" names ' // names)
        if (rank /= nprocs - 1) call expect(index(msg, 'failed on rank') &
          > 0, what // ': message "' // msg // '" says which rank failed')
        call check_file(cols, what)
        ! the next call works: my column written with new values, read back
        salt = salt + 1
        do i = 1, nx
          buf(i) = val(i, col, salt)
        end do
        call darray_write_section(f, a, [1_int64, col], [int(nx, int64), &
          1_int64], buf, ierr=ierr)
        call expect(ierr == DARRAY_SUCCESS, what // ': the next write')
        back = -1
        call darray_read_section(f, a, [1_int64, col], [int(nx, int64), &
          1_int64], back, ierr=ierr)
        call expect(ierr == DARRAY_SUCCESS .and. all(back == buf), &
          what // ': the next read')
        do r = 0, nprocs - 1
          cols(mod(r, ny) + 1) = salt
        end do
        call check_file(cols, what // ', the next write')
      end do
    end do
    call darray_file_close(f, ierr)
    call expect(ierr == DARRAY_SUCCESS, mode // ': darray_file_close')
    call darray_free(a, ierr)
    call MPI_Barrier(MPI_COMM_WORLD)
    if (rank == 0) then
      open (newunit=u, file=path, status='old')
      close (u, status='delete')
    end if
  end subroutine run
end program test_fortran_section_args
