! SPDX-License-Identifier: BSD-3-Clause
! Copyright (c) 2026 the darrayio authors (AUTHORS)
!
! test_fortran_stop.f90 - a call without ierr that fails must stop the
! program with the message, as MPI's default error handler would.
! test/fortran_stop.sh runs it and checks the exit status and the message.
! It uses the `mpi' module: the integer communicator of the generic call.
program test_fortran_stop
  use mpi
  use darrayio
  implicit none
  integer :: ierr
  type(darray_file_t) :: f
  call MPI_Init(ierr)
  call darray_file_open(MPI_COMM_WORLD, 'no/such/dir/stop.dat', &
    DARRAY_MODE_RDONLY, f)
  print '(a)', 'test_fortran_stop: still running after a failed call'
  call MPI_Finalize(ierr)
end program test_fortran_stop
