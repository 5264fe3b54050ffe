! SPDX-License-Identifier: BSD-3-Clause
! Copyright (c) 2026 the darrayio authors (AUTHORS)
!
! btio_f - the NAS BTIO I/O pattern from Fortran, as BT itself declares its
! data: examples/btio.c's twin, through module darrayio.
!
! BT keeps the q cells of a process (P = q*q, MULTIPARTITION) in
!     double precision u(5, -2:IMAX+1, -2:JMAX+1, -2:KMAX+1, ncells)
! with IMAX = JMAX = KMAX = N/q + 1: two ghost layers on every side and
! padding up to IMAX. Every dump is the global u(5, N, N, N) in Fortran
! order, appended to the file. Here the array is described once
!     gsizes = [5, N, N, N], dist = [NONE, MULTIPARTITION x 3],
!     ghost = [0, 2, 2, 2], padded = [5, IMAX+4, JMAX+4, KMAX+4]
! (Fortran order in memory and in the file is the module's default), the
! cells come from the description (darray_local_start / darray_local_shape,
! 1-based), and dump d is written straight from u after moving the
! displacement to (d-1) * 40 N^3 bytes. Each double holds its index in the
! file plus one, as in btio.c, so the two programs write the same bytes:
! test/btio_f_small.sh compares them with cmp. The dumps are then read back
! into a buffer of sentinels and every interior point and ghost is checked.
!
! Build: make (with a Fortran compiler: examples/btio_f)
! Run:   mpiexec -n 4 examples/btio_f --class S
!        mpiexec -n 4 examples/btio_f --class W --dumps 3 --file w.dat --keep
! Options (as btio.c's): --class S|W|A|B|C, --dumps K, --file PATH, --keep.
! Prints, from rank 0:
!   btio_f: class S, N=12, 12 dumps, P=4 (q=2), 829440 bytes
!   btio_f: wrote and read back 12 dumps x 12^3 points, OK
! Exit status: 0 when everything checked, 1 on a wrong value, 2 on a usage
! error or a P that is not a perfect square (a darrayio error stops the
! program with its message).
program btio_f
  use, intrinsic :: iso_fortran_env, only: int64, real64, error_unit
  use mpi
  use darrayio
  implicit none

  real(real64), parameter :: sentinel = -7.0_real64
  character(len=1) :: cls
  character(len=4096) :: path
  integer :: dumps, rank, nprocs, q, ncells, ierr, d, status
  integer(int64) :: n, imax
  logical :: keep
  type(darray_t) :: a
  type(darray_file_t) :: f
  integer(int64), allocatable :: lo(:, :), ln(:, :)
  real(real64), allocatable :: u(:, :, :, :, :)
  integer(int64) :: bad

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  status = parse()
  if (status == -1) then ! --help: the usage on standard output
    if (rank == 0) print '(a)', &
      'usage: btio_f [--class S|W|A|B|C] [--dumps K] [--file PATH] [--keep]'
    call MPI_Finalize(ierr)
    stop
  end if
  q = 1
  do while ((q + 1) * (q + 1) <= nprocs)
    q = q + 1
  end do
  if (status == 0 .and. q * q /= nprocs) then
    if (rank == 0) write (error_unit, '(a,i0,a)') 'btio_f: ', nprocs, &
      ' processes: BT needs a perfect square number of processes'
    status = 2
  end if
  if (status == 0 .and. n / q < 3) then
    if (rank == 0) write (error_unit, '(a)') &
      'btio_f: BT refuses cells smaller than 3 points in any dimension'
    status = 2
  end if
  if (status /= 0) then
    call MPI_Finalize(ierr)
    error stop 2
  end if
  imax = n / q + 1
  if (rank == 0) print '(a,a,a,i0,a,i0,a,i0,a,i0,a,i0,a)', 'btio_f: class ', &
    cls, ', N=', n, ', ', dumps, ' dumps, P=', nprocs, ' (q=', q, '), ', &
    40 * n**3 * dumps, ' bytes'

  call describe()
  allocate (u(5, -2:imax + 1, -2:imax + 1, -2:imax + 1, ncells))

  call darray_file_open(MPI_COMM_WORLD, path, DARRAY_MODE_RDWR + &
    DARRAY_MODE_CREATE + DARRAY_MODE_TRUNC, f)
  do d = 1, dumps
    call fill(d)
    call darray_set_displacement(a, 40 * n**3 * (d - 1))
    call darray_write(f, a, u)
  end do
  bad = 0
  do d = 1, dumps
    u = sentinel
    call darray_set_displacement(a, 40 * n**3 * (d - 1))
    call darray_read(f, a, u)
    bad = bad + check(d)
  end do
  call darray_file_close(f)
  call MPI_Allreduce(MPI_IN_PLACE, bad, 1, MPI_INTEGER8, MPI_SUM, &
    MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    if (bad == 0) then
      print '(a,i0,a,i0,a)', 'btio_f: wrote and read back ', dumps, &
        ' dumps x ', n, '^3 points, OK'
    else
      print '(a,i0,a)', 'btio_f: ', bad, ' wrong values, FAILED'
    end if
    if (.not. keep) then
      open (newunit=d, file=trim(path), status='old')
      close (d, status='delete')
    end if
  end if
  call darray_free(a)
  deallocate (u, lo, ln) ! main-program arrays live until the end otherwise
  call MPI_Finalize(ierr)
  if (bad /= 0) error stop 1

contains

  ! The options; 0, -1 for -h/--help, or 2 after a message on a usage
  ! error.
  integer function parse() result(rc)
    character(len=4096) :: arg, val
    integer :: i, nargs, ios
    cls = 'S'
    dumps = 0
    path = 'btio_f.dat'
    keep = .false.
    rc = 0
    nargs = command_argument_count()
    i = 1
    do while (i <= nargs .and. rc == 0)
      call get_command_argument(i, arg)
      val = ''
      if (i < nargs) call get_command_argument(i + 1, val)
      select case (trim(arg))
      case ('--class')
        cls = val(1:1)
        if (len_trim(val) /= 1) rc = 2
        i = i + 1
      case ('--dumps')
        read (val, *, iostat=ios) dumps
        if (ios /= 0 .or. dumps < 1) rc = 2
        i = i + 1
      case ('--file')
        path = val
        if (i == nargs) rc = 2
        i = i + 1
      case ('--keep')
        keep = .true.
      case ('-h', '--help')
        rc = -1
        return
      case default
        rc = 2
      end select
      i = i + 1
    end do
    select case (cls)
    case ('S'); n = 12
    case ('W'); n = 24
    case ('A'); n = 64
    case ('B'); n = 102
    case ('C'); n = 162
    case default; rc = 2
    end select
    if (dumps == 0) dumps = merge(12, 40, cls == 'S')
    if (rc /= 0 .and. rank == 0) write (error_unit, '(a)') &
      'usage: btio_f [--class S|W|A|B|C] [--dumps K] [--file PATH] [--keep]'
  end function parse

  ! The darrayio description of BT's u, and this process's cells from it,
  ! checked against BT's own formulas (BTIO.md).
  subroutine describe()
    integer :: c, s, xyz(3)
    integer(int64) :: size, excess, want_lo, want_len
    call darray_create(MPI_COMM_WORLD, [5_int64, n, n, n], DARRAY_DOUBLE, a)
    call darray_set_distribution(a, [DARRAY_DIST_NONE, &
      DARRAY_DIST_MULTIPARTITION, DARRAY_DIST_MULTIPARTITION, &
      DARRAY_DIST_MULTIPARTITION])
    call darray_set_memory_layout(a, ghost=[0_int64, 2_int64, 2_int64, &
      2_int64], padded=[5_int64, imax + 4, imax + 4, imax + 4])
    call darray_commit(a)
    call darray_num_cells(a, ncells)
    allocate (lo(4, ncells), ln(4, ncells))
    size = n / q
    excess = mod(n, int(q, int64))
    do c = 1, ncells
      call darray_local_start(a, c, lo(:, c))
      call darray_local_shape(a, c, ln(:, c))
      xyz = [modulo(mod(rank, q) + c - 1, q), modulo(rank / q - (c - 1), q), &
        c - 1]
      do s = 1, 3
        want_len = merge(size + 1, size, xyz(s) < excess)
        want_lo = merge(xyz(s) * (size + 1), excess * (size + 1) + &
          (xyz(s) - excess) * size, xyz(s) < excess)
        if (lo(s + 1, c) /= want_lo + 1 .or. ln(s + 1, c) /= want_len) then
          write (error_unit, '(a,i0,a)') 'btio_f: rank ', rank, &
            ': darrayio''s cells differ from BT''s'
          error stop 1
        end if
      end do
    end do
  end subroutine describe

  ! The value of component m (1..5) of global point (i, j, k) (1-based) in
  ! dump d (1-based): its index in the file, plus one.
  real(real64) function value(m, i, j, k, d)
    integer, intent(in) :: m, d
    integer(int64), intent(in) :: i, j, k
    value = real((m - 1) + 5 * ((i - 1) + n * ((j - 1) + n * ((k - 1) + &
      n * (d - 1)))) + 1, real64)
  end function value

  subroutine fill(d)
    integer, intent(in) :: d
    integer :: c, m
    integer(int64) :: x, y, z
    do c = 1, ncells
      do z = 0, ln(4, c) - 1
        do y = 0, ln(3, c) - 1
          do x = 0, ln(2, c) - 1
            do m = 1, 5
              u(m, x, y, z, c) = value(m, lo(2, c) + x, lo(3, c) + y, &
                lo(4, c) + z, d)
            end do
          end do
        end do
      end do
    end do
  end subroutine fill

  ! Wrong values of dump d in u: interior points, then ghosts and padding.
  integer(int64) function check(d) result(nbad)
    integer, intent(in) :: d
    integer :: c, m
    integer(int64) :: x, y, z
    logical :: inside
    nbad = 0
    do c = 1, ncells
      do z = -2, imax + 1
        do y = -2, imax + 1
          do x = -2, imax + 1
            inside = x >= 0 .and. x < ln(2, c) .and. y >= 0 .and. &
              y < ln(3, c) .and. z >= 0 .and. z < ln(4, c)
            do m = 1, 5
              if (inside) then
                if (u(m, x, y, z, c) /= value(m, lo(2, c) + x, &
                  lo(3, c) + y, lo(4, c) + z, d)) nbad = nbad + 1
              else
                if (u(m, x, y, z, c) /= sentinel) nbad = nbad + 1
              end if
            end do
          end do
        end do
      end do
    end do
  end function check

end program btio_f
