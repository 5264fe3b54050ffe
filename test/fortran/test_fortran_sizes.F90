! SPDX-License-Identifier: BSD-3-Clause
! Copyright (c) 2026 the darrayio authors (AUTHORS)
!
! test_fortran_sizes.F90 - the Fortran module's buffers and messages
! (issue #38), at 1-4 processes.
!
! Buffers: the module passes the actual argument's size, and the library
! refuses a short one with DARRAY_EBUFSIZE on every process, before any
! byte moves (the file, written with a pattern first, is compared byte for
! byte by rank 0's stream read); a strided actual argument is copied,
! written from and read into correctly. The array: real(real64) u(n, m)
! per process, the global (n, m P) in BLOCK columns, element (i, j) =
! value(i, j) at byte 8 ((i-1) + n (j-1)) of the file (Fortran order).
!  - u(:, 1:m-1) (contiguous, one column short) on the last process, then
!    on all: DARRAY_EBUFSIZE everywhere, the message naming both sizes,
!    the file unchanged; darray_read and darray_bwrite the same;
!  - u(1:n:2, :) for an array whose local piece is n x m (the trial's
!    segmentation fault): DARRAY_EBUFSIZE everywhere;
!  - u(1:n:2, :) for an array whose local piece is n/2 x m: written (the
!    file equals the serial reference) and read back into the odd rows of
!    a buffer whose even rows keep their values.
! Messages: the indices a message quotes are Fortran's (1-based) and the
! argument names are the module's: cell 0, dargs(2), start(2), gidx(2).
program test_fortran_sizes
  use, intrinsic :: iso_fortran_env, only: int64, real64, error_unit
  use mpi_f08
  use darrayio
  implicit none

  integer, parameter :: n = 6, m = 4
  integer :: rank, nprocs, bad, unit
  character(len=256) :: path

  bad = 0
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  path = 'test_fortran_sizes.dat'

  call test_short()
  call test_strided()
  call test_messages()

  call MPI_Allreduce(MPI_IN_PLACE, bad, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0) then
    if (bad == 0) then
      print '(a,i0,a)', 'test_fortran_sizes: P=', nprocs, ': OK'
    else
      print '(a,i0,a)', 'test_fortran_sizes: ', bad, ' checks FAILED'
    end if
    open (newunit=unit, file=trim(path), status='old')
    close (unit, status='delete')
  end if
  call MPI_Finalize()
  if (bad /= 0) error stop 1

contains

  subroutine expect(cond, what)
    logical, intent(in) :: cond
    character(*), intent(in) :: what
    if (cond) return
    bad = bad + 1
    write (error_unit, '(a,i0,a)') 'test_fortran_sizes: rank ', rank, &
      ': FAILED: ' // what
  end subroutine expect

  subroutine expect_rc(rc, want, what)
    integer, intent(in) :: rc, want
    character(*), intent(in) :: what
    call expect(rc == want, what // ': got ' // darray_err_name(rc) // &
      ', expected ' // darray_err_name(want))
  end subroutine expect_rc

  ! The message holds words.
  subroutine expect_msg(msg, words, what)
    character(*), intent(in) :: msg, words, what
    call expect(index(msg, words) > 0, what // ': message "' // msg // &
      '" lacks "' // words // '"')
  end subroutine expect_msg

  real(real64) function value(i, j)
    integer(int64), intent(in) :: i, j
    value = real(i + 1000 * j, real64)
  end function value

  ! An array of rows x (m P) doubles in BLOCK columns (Fortran order).
  subroutine make(a, rows)
    type(darray_t), intent(out) :: a
    integer, intent(in) :: rows
    integer :: ierr
    call darray_create(MPI_COMM_WORLD, [int(rows, int64), &
      int(m * nprocs, int64)], DARRAY_DOUBLE, a, ierr)
    call darray_set_distribution(a, [DARRAY_DIST_NONE, DARRAY_DIST_BLOCK], &
      ierr=ierr)
    call darray_commit(a, ierr)
    call expect_rc(ierr, DARRAY_SUCCESS, 'make')
  end subroutine make

  ! Rank 0: the file's bytes as doubles (n m P of them).
  subroutine file_values(got)
    real(real64), intent(out) :: got(:)
    integer :: u
    got = 0
    open (newunit=u, file=trim(path), access='stream', form='unformatted', &
      status='old')
    read (u) got
    close (u)
  end subroutine file_values

  ! The file still holds the pattern (rank 0 compares; a barrier).
  subroutine expect_pattern(pattern, what)
    real(real64), intent(in) :: pattern(:)
    character(*), intent(in) :: what
    real(real64) :: got(size(pattern))
    call MPI_Barrier(MPI_COMM_WORLD)
    if (rank == 0) then
      call file_values(got)
      call expect(all(got == pattern), what // ': the file changed')
    end if
    call MPI_Barrier(MPI_COMM_WORLD)
  end subroutine expect_pattern

  ! A code the same on every process, and a message: the short process's
  ! own (words), the others' naming the failing rank.
  subroutine expect_all(ierr, want, mine, msg, words, what)
    integer, intent(in) :: ierr, want
    logical, intent(in) :: mine
    character(*), intent(in) :: msg, words, what
    integer :: lo, hi
    call expect_rc(ierr, want, what)
    call MPI_Allreduce(ierr, lo, 1, MPI_INTEGER, MPI_MIN, MPI_COMM_WORLD)
    call MPI_Allreduce(ierr, hi, 1, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD)
    call expect(lo == hi, what // ': codes differ between processes')
    if (mine) then
      call expect_msg(msg, words, what)
    else
      call expect_msg(msg, 'failed on rank', what)
    end if
  end subroutine expect_all

  ! Short buffers, on the last process and then on all.
  subroutine test_short()
    type(darray_t) :: a
    type(darray_file_t) :: f
    real(real64) :: u(n, m), pattern(n * m * nprocs)
    character(len=80) :: words
    integer :: ierr, who, i
    integer(int64) :: req
    logical :: mine
    call make(a, n)
    do i = 1, size(pattern)
      pattern(i) = -real(i, real64)
    end do
    if (rank == 0) then
      open (newunit=i, file=trim(path), access='stream', &
        form='unformatted', status='replace')
      write (i) pattern
      close (i)
    end if
    call MPI_Barrier(MPI_COMM_WORLD)
    call darray_file_open(MPI_COMM_WORLD, path, DARRAY_MODE_RDWR, f, &
      ierr=ierr)
    call expect_rc(ierr, DARRAY_SUCCESS, 'open')
    u = 1
    write (words, '(a,i0,a,i0)') 'buf holds ', 8 * n * (m - 1), &
      ' bytes, but darray_'
    do who = 0, 1 ! 0: the last process is short; 1: every process
      mine = who == 1 .or. rank == nprocs - 1
      if (mine) then
        call darray_write(f, a, u(:, 1:m - 1), ierr)
      else
        call darray_write(f, a, u, ierr)
      end if
      call expect_all(ierr, DARRAY_EBUFSIZE, mine, darray_file_errmsg(f), &
        trim(words) // 'write needs 192', 'darray_write, short')
      call expect_pattern(pattern, 'darray_write, short')
      if (mine) then
        call darray_read(f, a, u(:, 1:m - 1), ierr)
      else
        call darray_read(f, a, u, ierr)
      end if
      call expect_all(ierr, DARRAY_EBUFSIZE, mine, darray_file_errmsg(f), &
        trim(words) // 'read needs 192', 'darray_read, short')
      if (mine) then
        call darray_bwrite(f, a, u(:, 1:m - 1), req, ierr)
      else
        call darray_bwrite(f, a, u, req, ierr)
      end if
      call expect_rc(ierr, DARRAY_SUCCESS, 'darray_bwrite, short: posted')
      call darray_wait(f, req, ierr)
      call expect_all(ierr, DARRAY_EBUFSIZE, mine, darray_file_errmsg(f), &
        trim(words) // 'bwrite needs 192', 'darray_bwrite, short')
      call expect_pattern(pattern, 'darray_bwrite, short')
      ! the trial's strided section: half the piece, copied into a
      ! temporary of its own size, which the library used to overrun
      if (mine) then
        call darray_read(f, a, u(1:n:2, :), ierr)
      else
        call darray_read(f, a, u, ierr)
      end if
      call expect_all(ierr, DARRAY_EBUFSIZE, mine, darray_file_errmsg(f), &
        'buf holds 96 bytes, but darray_read needs 192', &
        'darray_read, u(1:n:2, :) for an n x m piece')
    end do
    call darray_file_close(f, ierr)
    call darray_free(a)
  end subroutine test_short

  ! A strided actual argument of the right size: written and read back.
  subroutine test_strided()
    type(darray_t) :: a
    type(darray_file_t) :: f
    real(real64) :: u(n, m), back(n, m), got(n / 2 * m * nprocs)
    integer :: ierr, i, j
    integer(int64) :: jg, req
    call make(a, n / 2)
    do j = 1, m
      jg = int(rank * m + j, int64)
      do i = 1, n
        u(i, j) = value(int((i + 1) / 2, int64), jg)
        if (mod(i, 2) == 0) u(i, j) = -1
      end do
    end do
    call darray_file_open(MPI_COMM_WORLD, path, DARRAY_MODE_RDWR + &
      DARRAY_MODE_CREATE + DARRAY_MODE_TRUNC, f, ierr=ierr)
    call darray_write(f, a, u(1:n:2, :), ierr)
    call expect_rc(ierr, DARRAY_SUCCESS, 'darray_write of u(1:n:2, :)')
    call MPI_Barrier(MPI_COMM_WORLD)
    if (rank == 0) then
      call file_values(got)
      do j = 1, m * nprocs
        do i = 1, n / 2
          call expect(got(i + (n / 2) * (j - 1)) == &
            value(int(i, int64), int(j, int64)), 'strided write: the file')
        end do
      end do
    end if
    call MPI_Barrier(MPI_COMM_WORLD)
    back = 7
    call darray_read(f, a, back(1:n:2, :), ierr)
    call expect_rc(ierr, DARRAY_SUCCESS, 'darray_read into back(1:n:2, :)')
    call expect(all(back(1:n:2, :) == u(1:n:2, :)), 'strided read: values')
    call expect(all(back(2:n:2, :) == 7), 'strided read: even rows kept')
    ! a buffered write takes a strided array too
    call darray_bwrite(f, a, u(1:n:2, :), req, ierr)
    call darray_wait(f, req, ierr)
    call expect_rc(ierr, DARRAY_SUCCESS, 'darray_bwrite of u(1:n:2, :)')
    ! a section, strided: the first two rows of this process's columns
    back = 7
    call darray_read_section(f, a, [1_int64, int(rank * m + 1, int64)], &
      [2_int64, int(m, int64)], back(1:3:2, :), ierr=ierr)
    call expect_rc(ierr, DARRAY_SUCCESS, 'darray_read_section, strided')
    call expect(all(back(1:3:2, :) == u(1:3:2, :)) .and. &
      all(back(2, :) == 7), 'darray_read_section, strided: values')
    call darray_file_close(f, ierr)
    call darray_free(a)
  end subroutine test_strided

  ! Messages in Fortran's indices and names.
  subroutine test_messages()
    type(darray_t) :: a, b
    type(darray_file_t) :: f
    integer(int64) :: ls(2), off
    real(real64) :: u(n, m)
    integer :: ierr
    character(len=24) :: mp
    call make(a, n)
    call darray_local_shape(a, 0, ls, ierr)
    call expect_rc(ierr, DARRAY_EINDEX, 'cell 0')
    call expect_msg(darray_errmsg(a), 'cell = 0 is not in [1, 1]', 'cell 0')
    call darray_file_offset(a, [1_int64, 0_int64], off, ierr)
    call expect_rc(ierr, DARRAY_EINDEX, 'gidx(2) = 0')
    write (mp, '(a,i0,a)') '[1, ', m * nprocs, ']'
    call expect_msg(darray_errmsg(a), 'gidx(2) = 0 is not in ' // trim(mp), &
      'gidx(2) = 0')
    call darray_create(MPI_COMM_WORLD, [4_int64, 4_int64], DARRAY_DOUBLE, b, &
      ierr)
    call darray_set_distribution(b, [DARRAY_DIST_NONE, DARRAY_DIST_BLOCK], &
      [1_int64, 0_int64], ierr)
    call expect_rc(ierr, DARRAY_EDIST, 'dargs(2) = 0')
    call expect_msg(darray_errmsg(b), 'dargs(2) = 0: a block size', &
      'dargs(2) = 0')
    call darray_free(b)
    call darray_file_open(MPI_COMM_WORLD, path, DARRAY_MODE_RDWR + &
      DARRAY_MODE_CREATE, f, ierr=ierr)
    call darray_read_section(f, a, [1_int64, 0_int64], [1_int64, 1_int64], &
      u, ierr=ierr)
    call expect_rc(ierr, DARRAY_EINDEX, 'start(2) = 0')
    call expect_msg(darray_file_errmsg(f), 'start(2) = 0, count(2) = 1: ' // &
      'not inside ' // trim(mp), 'start(2) = 0')
    call darray_file_close(f, ierr)
    call darray_free(a)
  end subroutine test_messages

end program test_fortran_sizes
