! SPDX-License-Identifier: BSD-3-Clause
! Copyright (c) 2026 the darrayio authors (AUTHORS)
!
! main_f.f90 - the Fortran program test/install/check.sh builds against an
! installed darrayio with CMake (darrayio::darrayiof), when the Fortran
! module was installed. It checks that module darrayio (its
! DARRAYIO_VERSION_* constants) and the library it runs with have the same
! version, then writes a 1-D array of 11 int32, element i (1-based) holding
! 7 i, BLOCK over the processes, to the file named on the command line,
! reads it back and compares; rank 0 also reads the file with stream I/O.
! Exit status 0 when all agree, 1 otherwise.
program main_f
  use, intrinsic :: iso_fortran_env, only: int32, int64, error_unit
  use mpi
  use darrayio
  implicit none
  integer(int64), parameter :: n = 11
  type(darray_t) :: a
  type(darray_file_t) :: f
  integer :: ierr, rank, nprocs, major, minor, patch, bad, u
  integer(int64) :: lo(1), ls(1), i
  integer(int32), allocatable :: out(:), in(:)
  integer(int32) :: whole(n)
  character(len=256) :: path

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  bad = 0
  path = 'install_check_f.dat'
  if (command_argument_count() > 0) call get_command_argument(1, path)

  call darray_get_version(major, minor, patch)
  if (major /= DARRAYIO_VERSION_MAJOR .or. minor /= DARRAYIO_VERSION_MINOR &
      .or. patch /= DARRAYIO_VERSION_PATCH) then
    write (error_unit, '(a,i0,a,i0,a,i0,a,a)') 'version: module darrayio is ', &
      DARRAYIO_VERSION_MAJOR, '.', DARRAYIO_VERSION_MINOR, '.', &
      DARRAYIO_VERSION_PATCH, ' but the library is ', darray_version_string()
    bad = 1
  end if

  ! Every call below stops the program with the library's message if it
  ! fails (no ierr).
  call darray_create(MPI_COMM_WORLD, [n], DARRAY_INT32, a)
  call darray_set_distribution(a, [DARRAY_DIST_BLOCK])
  call darray_commit(a)
  call darray_local_start(a, 1, lo)
  call darray_local_shape(a, 1, ls)
  allocate (out(ls(1)), in(ls(1)))
  do i = 1, ls(1)
    out(i) = int(7 * (lo(1) + i - 1), int32)
  end do
  in = 0
  call darray_file_open(MPI_COMM_WORLD, trim(path), &
    ior(DARRAY_MODE_RDWR, ior(DARRAY_MODE_CREATE, DARRAY_MODE_TRUNC)), f)
  call darray_write(f, a, out)
  call darray_read(f, a, in)
  call darray_file_close(f)
  call darray_free(a)
  if (any(in /= out)) then
    write (error_unit, '(a,i0)') 'read back differs on rank ', rank
    bad = 1
  end if

  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    open (newunit=u, file=trim(path), access='stream', form='unformatted', &
      status='old', action='read')
    read (u) whole
    close (u, status='delete')
    do i = 1, n
      if (whole(i) /= 7 * i) then
        write (error_unit, '(a,i0,a,i0)') 'file: element ', i, ' is ', whole(i)
        bad = 1
      end if
    end do
  end if
  call MPI_Allreduce(MPI_IN_PLACE, bad, 1, MPI_INTEGER, MPI_MAX, &
    MPI_COMM_WORLD, ierr)
  if (rank == 0 .and. bad == 0) print '(a,a,a,i0,a)', &
    'install check (Fortran): darrayio ', darray_version_string(), ', ', &
    nprocs, ' processes: OK'
  call MPI_Finalize(ierr)
  if (bad /= 0) error stop 1
end program main_f
