! SPDX-License-Identifier: BSD-3-Clause
! Copyright (c) 2026 the darrayio authors (AUTHORS)
!
! ooc_f - an out-of-core Jacobi heat sweep from Fortran, through module
! darrayio: examples/ooc_heat.c's twin, for the same options the same files.
!
! The grid is u(N, N) of doubles, kept in two files (this step and the
! next) in Fortran order: column y of u is row y-1 of ooc_heat.c's
! row-major grid, so the files hold the same bytes. Each process owns a
! BLOCK of columns (dist = [NONE, BLOCK]), far more than fits in the memory
! it is given (--budget), so it sweeps through them in slabs: for slab
! columns c0..c1 it reads columns c0-1..c1+1 (the halo columns belong to
! the neighbours: overlapping reads are fine) with darray_read_section,
! computes the new values, and writes columns c0..c1 to the other file with
! darray_write_section. Section starts are 1-based global indices and the
! slab buffers are plain Fortran arrays shaped like the section
! (doc/porting.md, section 7, goes through the port call by call).
!
! The boundary rows and columns keep their initial values. With --verify,
! rank 0 also runs the same computation in core and compares every double
! of the final file bit for bit. test/ooc_f_small.sh compares both files
! with ooc_heat's (cmp), whose --verify checks them in C.
!
! Build: make (with a Fortran compiler: examples/ooc_f)
! Run:   mpiexec -n 2 examples/ooc_f -n 1024 --iters 4 --budget 1m
!        mpiexec -n 3 examples/ooc_f -n 96 --iters 3 --budget 8k --verify
! Options (as ooc_heat.c's):
!   -n N          grid size (default 512)
!   --iters K     Jacobi iterations (default 4)
!   --budget B    in-core bytes per process for the slab buffers (default
!                 256k; suffixes k, m); the library's own temporary memory
!                 is capped to the same size by the darray_temp_limit hint
!   --dir D       directory for the files ooc_f.0.dat and ooc_f.1.dat
!                 (default .)
!   --verify      compare with an in-core run on rank 0 (small N only)
!   --keep        keep the two files (the final grid is ooc_f.K%2.dat for
!                 K iterations; the other holds the step before)
!   -h, --help    print the usage and exit 0
! Prints from rank 0: the sizes and the out-of-core ratio, then
! "io X s, compute Y s", the library's largest temporary buffer (checked
! against the budget), then "ooc_f: verified" with --verify. Exit status
! (STOP codes): 0 on success and for --help, 1 on a mismatch or a library
! buffer over the budget, 2 on a usage error or a darrayio error (its
! message is printed first).
program ooc_f
  use, intrinsic :: iso_fortran_env, only: int64, real64, error_unit, &
    output_unit
  use mpi
  use darrayio
  implicit none

  integer(int64) :: n, budget
  integer :: iters, rank, nprocs, ierr, it, k, status, result
  logical :: verify, keep, help
  character(len=4096) :: dir
  character(len=4200) :: paths(0:1)
  type(darray_t) :: a
  type(darray_file_t) :: f(0:1)
  integer(int64) :: lo, hi    ! my columns, 1-based, inclusive
  integer(int64) :: slab      ! columns per slab
  integer(int64) :: nslabs    ! the same on every process
  real(real64), allocatable :: uin(:, :), uout(:, :)
  real(real64) :: t(3)        ! seconds in I/O, in computation; peak
  integer(int64) :: peak

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  status = parse()
  if (status /= 0 .or. help) then
    if (rank == 0) call usage(status == 0)
    call MPI_Finalize(ierr)
    if (status /= 0) stop 2
    stop
  end if

  t = 0
  call setup()
  call initialize()
  do it = 0, iters - 1
    do k = 1, int(nslabs)
      call sweep_slab(k, f(mod(it, 2)), f(mod(it + 1, 2)))
    end do
  end do
  ! the slowest process's times and the library's largest temporary buffer
  ! in one reduction (the `mpi' module checks no buffer types, and gfortran
  ! refuses two types in one program; a peak is far below 2**53)
  t(3) = real(max(peak_of(f(0)), peak_of(f(1))), real64)
  call MPI_Allreduce(MPI_IN_PLACE, t, 3, MPI_DOUBLE_PRECISION, MPI_MAX, &
    MPI_COMM_WORLD, ierr)
  peak = int(t(3), int64)
  call darray_file_close(f(0), ierr) ! on failure the message is the
  call check(ierr, 'close')           ! thread's: the handle is gone
  call darray_file_close(f(1), ierr)
  call check(ierr, 'close')
  call darray_free(a, ierr)
  call check(ierr, 'free')
  deallocate (uin, uout) ! main-program arrays live until the end otherwise

  result = 0
  if (rank == 0) then
    print '(a)', 'io ' // fixed(t(1), 4) // ' s, compute ' // &
      fixed(t(2), 4) // ' s'
    print '(a,i0,a,i0,a)', 'library temporary memory: at most ', peak, &
      ' bytes per process (limit ', budget, ')'
    if (peak > budget) then
      print '(a)', 'ooc_f: the library exceeded its memory limit'
      result = 1
    end if
    if (verify) then
      if (verified(paths(mod(iters, 2)))) then
        print '(a)', 'ooc_f: verified'
      else
        print '(a)', 'ooc_f: MISMATCH'
        result = 1
      end if
    end if
    if (.not. keep) then
      call remove(paths(0))
      call remove(paths(1))
    end if
  end if
  call MPI_Bcast(result, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  call MPI_Finalize(ierr)
  if (result /= 0) stop 1

contains

  ! The options; 0, or 2 on a usage error.
  integer function parse() result(rc)
    character(len=4096) :: arg, val
    integer :: i, nargs, ios
    n = 512
    iters = 4
    budget = 256 * 1024
    dir = '.'
    verify = .false.
    keep = .false.
    help = .false.
    rc = 0
    nargs = command_argument_count()
    i = 1
    do while (i <= nargs .and. rc == 0)
      call get_command_argument(i, arg)
      val = ''
      if (i < nargs) call get_command_argument(i + 1, val)
      select case (trim(arg))
      case ('-n')
        read (val, *, iostat=ios) n
        if (ios /= 0) rc = 2
        i = i + 1
      case ('--iters')
        read (val, *, iostat=ios) iters
        if (ios /= 0) rc = 2
        i = i + 1
      case ('--budget')
        budget = parse_size(val)
        i = i + 1
      case ('--dir')
        dir = val
        if (i == nargs) rc = 2
        i = i + 1
      case ('--verify')
        verify = .true.
      case ('--keep')
        keep = .true.
      case ('-h', '--help')
        help = .true.
      case default
        rc = 2
      end select
      i = i + 1
    end do
    if (n < 3 .or. iters < 0 .or. budget <= 0) rc = 2
  end function parse

  ! A byte count with an optional suffix k or m; 0 when it is not one.
  integer(int64) function parse_size(s) result(v)
    character(*), intent(in) :: s
    integer :: last, ios
    integer(int64) :: scale
    last = len_trim(s)
    scale = 1
    if (last > 0) then
      select case (s(last:last))
      case ('k', 'K')
        scale = 1024
        last = last - 1
      case ('m', 'M')
        scale = 1024 * 1024
        last = last - 1
      end select
    end if
    v = 0
    ios = 1
    if (last > 0) read (s(1:last), *, iostat=ios) v
    if (ios /= 0) v = 0
    v = v * scale
  end function parse_size

  subroutine usage(full)
    logical, intent(in) :: full
    integer :: u
    u = error_unit
    if (full) u = output_unit
    write (u, '(a)') 'usage: ooc_f [-n N] [--iters K] [--budget B] ' // &
      '[--dir D] [--verify] [--keep] [-h|--help]'
    if (.not. full) return
    write (u, '(a)') '  -n N        grid size N x N (default 512, at least 3)'
    write (u, '(a)') '  --iters K   Jacobi iterations (default 4)'
    write (u, '(a)') '  --budget B  in-core bytes per process (default ' // &
      '256k; suffixes k, m)'
    write (u, '(a)') '  --dir D     directory of the files ooc_f.0.dat ' // &
      'and ooc_f.1.dat (default .)'
    write (u, '(a)') '  --verify    compare the final file with an ' // &
      'in-core run on rank 0'
    write (u, '(a)') '  --keep      keep the two files'
    write (u, '(a)') '  -h, --help  this text'
  end subroutine usage

  ! A failed darrayio call (ierr /= DARRAY_SUCCESS): its message, then the
  ! end of the program with status 2. Collective calls fail on every
  ! process alike, so every process comes here and finalizes MPI.
  subroutine check(ierr, what, file)
    integer, intent(in) :: ierr
    character(*), intent(in) :: what
    type(darray_file_t), intent(in), optional :: file
    integer :: e
    if (ierr == DARRAY_SUCCESS) return
    if (present(file)) then
      write (error_unit, '(a)') 'ooc_f: ' // what // ': ' // &
        darray_err_name(ierr) // ': ' // darray_file_errmsg(file)
    else
      write (error_unit, '(a)') 'ooc_f: ' // what // ': ' // &
        darray_err_name(ierr) // ': ' // darray_errmsg()
    end if
    call MPI_Finalize(e)
    stop 2
  end subroutine check

  ! Initial value of point u(x, y): hot left edge, a bump inside; in
  ! ooc_heat's terms row i = y-1, column j = x-1.
  real(real64) function initial(x, y)
    integer(int64), intent(in) :: x, y
    integer(int64) :: i, j
    i = y - 1
    j = x - 1
    if (j == 0) then
      initial = 100
    else if (i == 0 .or. j == n - 1 .or. i == n - 1) then
      initial = 0
    else
      initial = real(mod(i * 31 + j * 17, 13_int64), real64)
    end if
  end function initial

  ! One Jacobi step for columns c0..c1 of the grid, given columns
  ! first..last (c0-1..c1+1, clipped to 1..n) in uin; writes uout. The sum
  ! is parenthesized in ooc_heat's order (left, right, up, down), so the
  ! two programs round alike.
  subroutine step(first, last, c0, c1, uin, uout)
    integer(int64), intent(in) :: first, last, c0, c1
    real(real64), intent(in) :: uin(n, first:last)
    real(real64), intent(out) :: uout(n, c0:c1)
    integer(int64) :: x, y
    do y = c0, c1
      do x = 1, n
        if (y == 1 .or. y == n .or. x == 1 .or. x == n) then
          uout(x, y) = uin(x, y)
        else
          uout(x, y) = 0.25_real64 * (((uin(x - 1, y) + uin(x + 1, y)) + &
            uin(x, y - 1)) + uin(x, y + 1))
        end if
      end do
    end do
  end subroutine step

  ! Columns c0..c1 of slab k (1-based) of my columns; c0 > c1 past them.
  subroutine slab_columns(k, c0, c1)
    integer, intent(in) :: k
    integer(int64), intent(out) :: c0, c1
    c0 = lo + (k - 1) * slab
    c1 = min(c0 + slab - 1, hi)
  end subroutine slab_columns

  ! Slab k of my columns: read with halo from src, step, write to dst. A
  ! process past its columns still takes part, with empty sections.
  subroutine sweep_slab(k, src, dst)
    integer, intent(in) :: k
    type(darray_file_t), intent(in) :: src, dst
    integer(int64) :: c0, c1, first, last
    real(real64) :: t0
    call slab_columns(k, c0, c1)
    first = max(c0 - 1, 1_int64)
    last = min(c1 + 1, n)
    if (c0 > c1) then
      c0 = 1
      c1 = 0
      first = 1
      last = 0
    end if
    t0 = MPI_Wtime()
    call darray_read_section(src, a, [1_int64, first], &
      [n, last - first + 1], uin, ierr=ierr)
    call check(ierr, 'read_section', src)
    t(1) = t(1) + (MPI_Wtime() - t0)
    t0 = MPI_Wtime()
    call step(first, last, c0, c1, uin, uout)
    t(2) = t(2) + (MPI_Wtime() - t0)
    t0 = MPI_Wtime()
    call darray_write_section(dst, a, [1_int64, c0], [n, c1 - c0 + 1], &
      uout, ierr=ierr)
    call check(ierr, 'write_section', dst)
    t(1) = t(1) + (MPI_Wtime() - t0)
  end subroutine sweep_slab

  ! Write the initial grid to file 0, one slab at a time.
  subroutine initialize()
    integer(int64) :: c0, c1, x, y
    integer :: k
    do k = 1, int(nslabs)
      call slab_columns(k, c0, c1)
      if (c0 > c1) then
        c0 = 1
        c1 = 0
      end if
      do y = c0, c1
        do x = 1, n
          uout(x, y - c0 + 1) = initial(x, y)
        end do
      end do
      call darray_write_section(f(0), a, [1_int64, c0], [n, c1 - c0 + 1], &
        uout, ierr=ierr)
      call check(ierr, 'initial write', f(0))
    end do
  end subroutine initialize

  ! The description, my columns, the slab size, the buffers and the files.
  subroutine setup()
    integer(int64) :: start(2), shape(2), cols
    integer :: info, e, i
    character(len=32) :: v
    call darray_create(MPI_COMM_WORLD, [n, n], DARRAY_DOUBLE, a, ierr)
    call check(ierr, 'create')
    call darray_set_distribution(a, [DARRAY_DIST_NONE, DARRAY_DIST_BLOCK], &
      ierr=ierr)
    call check(ierr, 'set_distribution')
    call darray_commit(a, ierr)
    call check(ierr, 'commit')
    call darray_local_start(a, 1, start, ierr)
    call check(ierr, 'local_start')
    call darray_local_shape(a, 1, shape, ierr)
    call check(ierr, 'local_shape')
    lo = start(2)
    hi = start(2) + shape(2) - 1
    ! budget: a slab with two halo columns in, a slab out
    slab = max((budget / (8 * n) - 2) / 2, 1_int64)
    cols = (n + nprocs - 1) / nprocs
    nslabs = (cols + slab - 1) / slab
    allocate (uin(n, slab + 2), uout(n, slab))
    call MPI_Info_create(info, e)
    write (v, '(i0)') budget ! cap the library's memory
    call MPI_Info_set(info, 'darray_temp_limit', trim(v), e)
    do i = 0, 1
      write (paths(i), '(a,a,i0,a)') trim(dir), '/ooc_f.', i, '.dat'
      call darray_file_open(MPI_COMM_WORLD, trim(paths(i)), &
        DARRAY_MODE_RDWR + DARRAY_MODE_CREATE + DARRAY_MODE_TRUNC, f(i), &
        info, ierr)
      call check(ierr, 'open')
    end do
    call MPI_Info_free(info, e)
    if (rank == 0) print '(a,i0,a,i0,a,i0,a,a,a,i0,a,a,a,i0,a)', &
      'ooc_f: N=', n, ', ', nprocs, ' processes, ', cols, &
      ' columns each (', fixed(real(cols * n * 8, real64) / 2**20, 1), &
      ' MiB), budget ', budget, ' bytes: ', &
      fixed(real(cols * n * 8, real64) / real(budget, real64), 1), &
      'x out of core, slabs of ', slab, ' columns'
  end subroutine setup

  ! The most temporary memory one call of the library took on file g.
  integer(int64) function peak_of(g)
    type(darray_file_t), intent(in) :: g
    type(darray_stats_t) :: st
    call darray_file_get_stats(g, st, ierr)
    call check(ierr, 'get_stats', g)
    peak_of = st%peak_temp_bytes
  end function peak_of

  ! Rank 0: the same iterations in core; compare with the final file.
  logical function verified(path)
    character(*), intent(in) :: path
    real(real64), allocatable :: g(:, :, :), h(:, :)
    integer(int64) :: x, y, bad
    integer :: u, ios, cur, i
    allocate (g(n, n, 0:1), h(n, n))
    do y = 1, n
      do x = 1, n
        g(x, y, 0) = initial(x, y)
      end do
    end do
    cur = 0
    do i = 1, iters
      call step(1_int64, n, 1_int64, n, g(:, :, cur), g(:, :, 1 - cur))
      cur = 1 - cur
    end do
    bad = -1
    open (newunit=u, file=trim(path), access='stream', form='unformatted', &
      status='old', action='read', iostat=ios)
    if (ios == 0) then
      read (u, iostat=ios) h
      close (u)
    end if
    if (ios == 0) then
      bad = 0
      do y = 1, n
        do x = 1, n
          if (transfer(g(x, y, cur), 0_int64) /= transfer(h(x, y), 0_int64)) &
            bad = bad + 1
        end do
      end do
    end if
    if (bad /= 0) write (error_unit, '(a,i0,a)') 'ooc_f: ', bad, &
      ' values differ from the in-core run'
    verified = bad == 0
  end function verified

  ! x with d decimals and a digit before the point, as C's %.*f prints it.
  function fixed(x, d) result(s)
    real(real64), intent(in) :: x
    integer, intent(in) :: d
    character(len=:), allocatable :: s
    character(len=40) :: buf, form
    write (form, '(a,i0,a)') '(f0.', d, ')'
    write (buf, form) x
    s = trim(buf)
    if (s(1:1) == '.') s = '0' // s
    if (s(1:2) == '-.') s = '-0' // s(2:)
  end function fixed

  subroutine remove(path)
    character(*), intent(in) :: path
    integer :: u, ios
    open (newunit=u, file=trim(path), status='old', iostat=ios)
    if (ios == 0) close (u, status='delete')
  end subroutine remove

end program ooc_f
