! SPDX-License-Identifier: BSD-3-Clause
! Copyright (c) 2026 the darrayio authors (AUTHORS)
!
! test_fortran_async.F90 - the nonblocking calls of module darrayio, at 1-4
! processes, under each way requests run: the body runs once per value of
! the hint darray_async (thread, files, none); MPI_THREAD_MULTIPLE is
! requested so that `thread' is possible.
!
! The oracle is closed form: in step s, element (i, j) of the nx x ny global
! array (1-based Fortran indices) holds val(i, j, s) = i + 100 j + 10000 s,
! at byte 8 ((i-1) + nx (j-1)) of the Fortran-order file. Rank 0 reads the
! file with plain Fortran stream I/O after each step and checks every
! element; every rank checks what it reads back element by element. Every
! call passes ierr and checks the code, except the waits on
! DARRAY_REQUEST_NULL, which must succeed without it.
program test_fortran_async
  use, intrinsic :: iso_fortran_env, only: int64, real64, error_unit
  use mpi_f08
  use darrayio
  implicit none

  integer, parameter :: nx = 9, ny = 7
  real(real64), parameter :: sentinel = -1.0_real64
  character(len=*), parameter :: path = 'test_fortran_async.dat'
  character(len=8), parameter :: modes(3) = [character(len=8) :: &
    'thread', 'files', 'none']
  integer :: rank, nprocs, bad, provided, m

  call MPI_Init_thread(MPI_THREAD_MULTIPLE, provided)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  bad = 0
  if (rank == 0 .and. provided < MPI_THREAD_MULTIPLE) &
    print '(a)', 'test_fortran_async: MPI_THREAD_MULTIPLE not provided; ' // &
      'darray_async=thread is lowered'

  do m = 1, size(modes)
    call run(trim(modes(m)))
  end do

  call MPI_Allreduce(MPI_IN_PLACE, bad, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0) then
    if (bad == 0) then
      print '(a,i0,a)', 'test_fortran_async: P=', nprocs, ': OK'
    else
      print '(a,i0,a)', 'test_fortran_async: ', bad, ' checks FAILED'
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
    write (error_unit, '(a,i0,a)') 'test_fortran_async: rank ', rank, &
      ': FAILED: ' // what
  end subroutine expect

  subroutine expect_rc(rc, want, what)
    integer, intent(in) :: rc, want
    character(*), intent(in) :: what
    call expect(rc == want, what // ': got ' // darray_err_name(rc) // &
      ', expected ' // darray_err_name(want))
  end subroutine expect_rc

  real(real64) function val(i, j, s)
    integer(int64), intent(in) :: i, j
    integer, intent(in) :: s
    val = real(i + 100 * j + 10000 * s, real64)
  end function val

  ! Columns j = 1 .. nw were written by darray_bwrite_section (one each).
  integer(int64) function nw()
    nw = min(nprocs, ny)
  end function nw

  ! What element (i, j) of the file holds after phase:
  !  1 darray_iwrite of step 1;  2 darray_bwrite of step 2;
  !  3 darray_bwrite_section: columns j <= nw of step 4, the rest as 2;
  !  4 darray_iwrite_section: rows i = 2 .. nx-1 of step 3, the rest as 3.
  real(real64) function expected(phase, i, j)
    integer, intent(in) :: phase
    integer(int64), intent(in) :: i, j
    select case (phase)
    case (1)
      expected = val(i, j, 1)
    case (2)
      expected = val(i, j, 2)
    case (3)
      expected = val(i, j, 2)
      if (j <= nw()) expected = val(i, j, 4)
    case default
      expected = val(i, j, 2)
      if (j <= nw()) expected = val(i, j, 4)
      if (i >= 2 .and. i <= nx - 1) expected = val(i, j, 3)
    end select
  end function expected

  ! After a sync: rank 0 checks every element of the file at its offset.
  subroutine check_file(f, phase, what)
    type(darray_file_t), intent(in) :: f
    integer, intent(in) :: phase
    character(*), intent(in) :: what
    integer :: u, ios, ierr
    integer(int64) :: i, j, nbad, fsize
    real(real64) :: v
    call darray_file_sync(f, ierr)
    call expect_rc(ierr, DARRAY_SUCCESS, what // ': darray_file_sync')
    call MPI_Barrier(MPI_COMM_WORLD)
    if (rank == 0) then
      open (newunit=u, file=path, access='stream', form='unformatted', &
        action='read', status='old', iostat=ios)
      call expect(ios == 0, what // ': open the file for checking')
      if (ios == 0) then
        inquire (unit=u, size=fsize)
        call expect(fsize == 8 * nx * ny, what // ': file size')
        nbad = 0
        do j = 1, ny
          do i = 1, nx
            read (u, pos=1 + 8 * ((i - 1) + nx * (j - 1))) v
            if (v /= expected(phase, i, j)) nbad = nbad + 1
          end do
        end do
        close (u)
        call expect(nbad == 0, what // ': the file holds the closed form')
      end if
    end if
    call MPI_Barrier(MPI_COMM_WORLD)
  end subroutine check_file

  ! A 2-D BLOCK x BLOCK array, one file with darray_async = mode, every
  ! nonblocking call.
  subroutine run(mode)
    character(*), intent(in) :: mode
    type(darray_t) :: a
    type(darray_file_t) :: f
    type(MPI_Info) :: info
    integer :: ierr
    integer(int64) :: lo(2), ls(2)
    character(len=16) :: hint

    call darray_create(MPI_COMM_WORLD, [int(nx, int64), int(ny, int64)], &
      DARRAY_DOUBLE, a, ierr)
    call expect_rc(ierr, DARRAY_SUCCESS, mode // ': darray_create')
    call darray_set_distribution(a, [DARRAY_DIST_BLOCK, DARRAY_DIST_BLOCK], &
      ierr=ierr)
    call darray_set_grid(a, [0, 0], ierr)
    call darray_commit(a, ierr)
    call expect_rc(ierr, DARRAY_SUCCESS, mode // ': darray_commit')
    call darray_local_shape(a, 1, ls, ierr)
    call darray_local_start(a, 1, lo, ierr)
    call expect_rc(ierr, DARRAY_SUCCESS, mode // ': darray_local_start')

    call MPI_Info_create(info)
    call MPI_Info_set(info, 'darray_async', mode)
    call darray_file_open(MPI_COMM_WORLD, path, DARRAY_MODE_RDWR + &
      DARRAY_MODE_CREATE + DARRAY_MODE_TRUNC, f, info, ierr)
    call MPI_Info_free(info)
    call expect_rc(ierr, DARRAY_SUCCESS, mode // ': darray_file_open')
    call darray_file_get_hint(f, 'darray_async', hint, ierr)
    call expect(ierr == 0 .and. hint == mode, mode // ': hint darray_async = ' &
      // trim(hint))

    call whole(f, a, lo, ls, mode)
    call buffered(f, a, lo, ls, mode)
    call sections(f, a, mode)
    call refusals(f, a, ls, mode)

    call darray_file_close(f, ierr)
    call expect_rc(ierr, DARRAY_SUCCESS, mode // ': darray_file_close')
    call darray_free(a, ierr)
    call MPI_Barrier(MPI_COMM_WORLD)
    if (rank == 0) then
      open (newunit=ierr, file=path, status='old')
      close (ierr, status='delete')
    end if
  end subroutine run

  ! darray_iwrite + darray_wait, then darray_iread completed by darray_test
  ! in a loop; a second wait on the completed request, waits and tests on
  ! DARRAY_REQUEST_NULL.
  subroutine whole(f, a, lo, ls, mode)
    type(darray_file_t), intent(in) :: f
    type(darray_t), intent(in) :: a
    integer(int64), intent(in) :: lo(2), ls(2)
    character(*), intent(in) :: mode
    real(real64), allocatable, asynchronous :: u(:, :)
    integer(int64) :: req, done_req, i, j, nbad
    integer :: ierr
    logical :: flag

    allocate (u(ls(1), ls(2)))
    do j = 1, ls(2)
      do i = 1, ls(1)
        u(i, j) = val(lo(1) + i - 1, lo(2) + j - 1, 1)
      end do
    end do
    call darray_iwrite(f, a, u, req, ierr)
    call expect_rc(ierr, DARRAY_SUCCESS, mode // ': darray_iwrite posts')
    call expect(req /= DARRAY_REQUEST_NULL, mode // ': darray_iwrite: req')
    call darray_wait(f, req, ierr)
    call expect_rc(ierr, DARRAY_SUCCESS, mode // ': darray_wait (iwrite)')
    call expect(req == DARRAY_REQUEST_NULL, mode // ': darray_wait nulls req')
    call check_file(f, 1, mode // ': darray_iwrite')

    u = sentinel
    call darray_iread(f, a, u, req, ierr)
    call expect_rc(ierr, DARRAY_SUCCESS, mode // ': darray_iread posts')
    done_req = req
    flag = .false.
    do while (.not. flag)
      call darray_test(f, req, flag, ierr)
      if (ierr /= DARRAY_SUCCESS) exit
    end do
    call expect(flag .and. ierr == DARRAY_SUCCESS .and. &
      req == DARRAY_REQUEST_NULL, mode // ': darray_test until complete')
    nbad = 0
    do j = 1, ls(2)
      do i = 1, ls(1)
        if (u(i, j) /= val(lo(1) + i - 1, lo(2) + j - 1, 1)) nbad = nbad + 1
      end do
    end do
    call expect(nbad == 0, mode // ': darray_iread: values')

    call darray_wait(f, done_req, ierr)
    call expect_rc(ierr, DARRAY_EREQUEST, mode // ': a second wait')
    call darray_test(f, done_req, flag, ierr)
    call expect_rc(ierr, DARRAY_EREQUEST, mode // ': a test after the wait')
    req = DARRAY_REQUEST_NULL
    call darray_wait(f, req, ierr)
    call expect_rc(ierr, DARRAY_SUCCESS, mode // ': wait on REQUEST_NULL')
    call darray_wait(f, req) ! stops the program unless it succeeds
    call darray_test(f, req, flag, ierr)
    call expect(ierr == DARRAY_SUCCESS .and. flag, mode // &
      ': test on REQUEST_NULL is complete')
  end subroutine whole

  ! darray_bwrite and darray_bwrite_section: the buffer is overwritten
  ! right after the post; the file gets the values it held at the post.
  ! The section's buffer is a strided section (a copy the compiler makes,
  ! which darray_bwrite_section takes: it copies before returning).
  subroutine buffered(f, a, lo, ls, mode)
    type(darray_file_t), intent(in) :: f
    type(darray_t), intent(in) :: a
    integer(int64), intent(in) :: lo(2), ls(2)
    character(*), intent(in) :: mode
    real(real64), allocatable :: w(:, :), wide(:, :)
    integer(int64) :: req, i, j, start(2), count(2)
    integer :: ierr

    allocate (w(ls(1), ls(2)))
    do j = 1, ls(2)
      do i = 1, ls(1)
        w(i, j) = val(lo(1) + i - 1, lo(2) + j - 1, 2)
      end do
    end do
    call darray_bwrite(f, a, w, req, ierr)
    w = sentinel
    call expect_rc(ierr, DARRAY_SUCCESS, mode // ': darray_bwrite posts')
    call darray_wait(f, req, ierr)
    call expect_rc(ierr, DARRAY_SUCCESS, mode // ': darray_wait (bwrite)')
    call check_file(f, 2, mode // ': darray_bwrite, buffer reused')

    ! Rank r < nw writes column j = r + 1, from every other row of wide.
    start = [1_int64, int(rank + 1, int64)]
    count = [int(nx, int64), 1_int64]
    if (rank >= nw()) count = 0
    allocate (wide(2 * nx, 1))
    wide = sentinel
    do i = 1, nx
      wide(2 * i - 1, 1) = val(i, start(2), 4)
    end do
    call darray_bwrite_section(f, a, start, count, wide(1:2 * nx:2, :), req, &
      ierr=ierr)
    wide = sentinel
    call expect_rc(ierr, DARRAY_SUCCESS, mode // &
      ': darray_bwrite_section posts')
    call darray_wait(f, req, ierr)
    call expect_rc(ierr, DARRAY_SUCCESS, mode // &
      ': darray_wait (bwrite_section)')
    call check_file(f, 3, mode // ': darray_bwrite_section, buffer reused')
  end subroutine buffered

  ! darray_iwrite_section of rows 2 .. nx-1 (rank r: a block of columns),
  ! then darray_iread_section of rows 3..5, columns 2..4, posted before the
  ! write completes (it must see the write), completed by darray_wait_all
  ! with codes and a REQUEST_NULL entry; a failing request's code.
  subroutine sections(f, a, mode)
    type(darray_file_t), intent(in) :: f
    type(darray_t), intent(in) :: a
    character(*), intent(in) :: mode
    real(real64), allocatable, asynchronous :: sw(:, :), sr(:, :), sc(:, :)
    integer(int64) :: reqs(3), start(2), count(2), rs(2), rcnt(2), i, j, nbad
    integer :: ierr, codes(3)

    start = [2_int64, int(rank * ny / nprocs + 1, int64)]
    count = [int(nx - 2, int64), int((rank + 1) * ny / nprocs, int64) - &
      start(2) + 1]
    allocate (sw(count(1), max(count(2), 1_int64)))
    do j = 1, count(2)
      do i = 1, count(1)
        sw(i, j) = val(start(1) + i - 1, start(2) + j - 1, 3)
      end do
    end do
    rs = [3_int64, 2_int64]
    rcnt = [3_int64, 3_int64]
    allocate (sr(rcnt(1), rcnt(2)))
    sr = sentinel
    call darray_iwrite_section(f, a, start, count, sw, reqs(1), ierr=ierr)
    call expect_rc(ierr, DARRAY_SUCCESS, mode // ': darray_iwrite_section')
    reqs(2) = DARRAY_REQUEST_NULL
    call darray_iread_section(f, a, rs, rcnt, sr, reqs(3), ierr=ierr)
    call expect_rc(ierr, DARRAY_SUCCESS, mode // ': darray_iread_section')
    codes = 12345
    call darray_wait_all(f, reqs, codes, ierr)
    call expect_rc(ierr, DARRAY_SUCCESS, mode // ': darray_wait_all')
    call expect(all(codes == DARRAY_SUCCESS) .and. &
      all(reqs == DARRAY_REQUEST_NULL), mode // ': darray_wait_all: codes')
    nbad = 0
    do j = 1, rcnt(2)
      do i = 1, rcnt(1)
        if (sr(i, j) /= expected(4, rs(1) + i - 1, rs(2) + j - 1)) &
          nbad = nbad + 1
      end do
    end do
    call expect(nbad == 0, mode // ': darray_iread_section (1-based): values')
    call check_file(f, 4, mode // ': darray_iwrite_section')
    ! a sync request completes like the others
    call darray_file_isync(f, reqs(2), ierr)
    call expect_rc(ierr, DARRAY_SUCCESS, mode // ': darray_file_isync')
    call expect(reqs(2) /= DARRAY_REQUEST_NULL, mode // ': isync: a request')
    call darray_wait(f, reqs(2), ierr)
    call expect_rc(ierr, DARRAY_SUCCESS, mode // ': darray_file_isync: wait')

    ! The same box in C order (sc(j, i)), and a section at index 0 (1-based
    ! terms): its request fails at completion, the other one succeeds.
    allocate (sc(rcnt(2), rcnt(1)))
    sc = sentinel
    call darray_iread_section(f, a, [0_int64, 1_int64], [1_int64, 1_int64], &
      sr, reqs(1), ierr=ierr)
    call expect_rc(ierr, DARRAY_SUCCESS, mode // ': post at index 0')
    call darray_iread_section(f, a, rs, rcnt, sc, reqs(2), DARRAY_ORDER_C, &
      ierr)
    call expect_rc(ierr, DARRAY_SUCCESS, mode // ': post in C order')
    codes = 12345
    call darray_wait_all(f, reqs(1:2), codes, ierr)
    call expect_rc(ierr, DARRAY_EINDEX, mode // ': darray_wait_all result')
    call expect_rc(codes(1), DARRAY_EINDEX, mode // ': codes(1)')
    call expect_rc(codes(2), DARRAY_SUCCESS, mode // ': codes(2)')
    call expect(codes(3) == 12345, mode // ': codes(3) left alone')
    nbad = 0
    do j = 1, rcnt(2)
      do i = 1, rcnt(1)
        if (sc(j, i) /= expected(4, rs(1) + i - 1, rs(2) + j - 1)) &
          nbad = nbad + 1
      end do
    end do
    call expect(nbad == 0, mode // ': darray_iread_section, C order: values')
  end subroutine sections

  ! What is refused: non-contiguous buffers of the i* calls (a pending
  ! request cannot use a copy), as the library refuses a bad argument of a
  ! request: posted, then DARRAY_EINVAL at the wait on every process alike,
  ! nothing moved (before issue #38 the module refused them without
  ! posting, and a process whose buffer alone was strided left the others
  ! waiting); a codes array shorter than reqs (the requests stay pending).
  subroutine refusals(f, a, ls, mode)
    type(darray_file_t), intent(in) :: f
    type(darray_t), intent(in) :: a
    integer(int64), intent(in) :: ls(2)
    character(*), intent(in) :: mode
    real(real64), allocatable, asynchronous :: big(:, :), r1(:, :), r2(:, :)
    integer(int64) :: req, reqs(2)
    integer :: ierr, codes(1)

    allocate (big(2 * max(ls(1), 2_int64), max(ls(2), 1_int64)))
    big = sentinel
    req = 42
    call darray_iwrite(f, a, big(1::2, :), req, ierr)
    call refused(f, req, ierr, mode // ': iwrite of a strided section')
    call darray_iread(f, a, big(1::2, :), req, ierr)
    call refused(f, req, ierr, mode // ': iread of a strided section')
    call darray_iwrite_section(f, a, [1_int64, 1_int64], [2_int64, 1_int64], &
      big(1:3:2, 1:1), req, ierr=ierr)
    call refused(f, req, ierr, mode // ': iwrite_section, strided')
    call darray_iread_section(f, a, [1_int64, 1_int64], [2_int64, 1_int64], &
      big(1:3:2, 1:1), req, ierr=ierr)
    call refused(f, req, ierr, mode // ': iread_section, strided')
    call expect(all(big == sentinel), mode // ': refused buffers untouched')

    allocate (r1(2, 1), r2(2, 1))
    r1 = sentinel
    r2 = sentinel
    call darray_iread_section(f, a, [1_int64, 1_int64], [2_int64, 1_int64], &
      r1, reqs(1), ierr=ierr)
    call darray_iread_section(f, a, [1_int64, 2_int64], [2_int64, 1_int64], &
      r2, reqs(2), ierr=ierr)
    call darray_wait_all(f, reqs, codes, ierr)
    call expect_rc(ierr, DARRAY_EINVAL, mode // ': wait_all, codes too short')
    call expect(all(reqs /= DARRAY_REQUEST_NULL), mode // &
      ': wait_all refused: requests still pending')
    call darray_wait_all(f, reqs, ierr=ierr)
    call expect_rc(ierr, DARRAY_SUCCESS, mode // ': wait_all without codes')
    call expect(r1(1, 1) == expected(4, 1_int64, 1_int64) .and. &
      r1(2, 1) == expected(4, 2_int64, 1_int64) .and. &
      r2(1, 1) == expected(4, 1_int64, 2_int64) .and. &
      r2(2, 1) == expected(4, 2_int64, 2_int64), mode // &
      ': wait_all without codes: values')
  end subroutine refusals

  ! A request posted with a non-contiguous buffer: its wait says
  ! DARRAY_EINVAL, naming the buffer.
  subroutine refused(f, req, ierr, what)
    type(darray_file_t), intent(in) :: f
    integer(int64), intent(inout) :: req
    integer, intent(inout) :: ierr
    character(*), intent(in) :: what
    call expect_rc(ierr, DARRAY_SUCCESS, what // ': posted')
    call expect(req /= DARRAY_REQUEST_NULL, what // ': a request')
    call darray_wait(f, req, ierr)
    call expect_rc(ierr, DARRAY_EINVAL, what // ': at the wait')
    call expect(index(darray_file_errmsg(f), 'not contiguous') > 0 .or. &
      index(darray_file_errmsg(f), 'failed on rank') > 0, what // &
      ': message "' // darray_file_errmsg(f) // '"')
    call expect(req == DARRAY_REQUEST_NULL, what // ': completed')
  end subroutine refused

end program test_fortran_async
