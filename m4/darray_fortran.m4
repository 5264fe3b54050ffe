# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the darrayio authors (AUTHORS)
#
# darray_fortran.m4 - the checks behind the Fortran module (fortran/).
#
# DARRAY_FORTRAN_CHECKS, after AC_PROG_FC: decides whether fortran/ is built
# (enable_fortran = yes|no|check, FC = no when disabled) and sets
#   BUILD_FORTRAN (conditional)    the module and libdarrayiof are built
#   FC_MODINC, FC_MODOUT           the compiler's module search/output flags
#   DARRAY_FC_DEFS                 -DDARRAY_HAVE_MPI_F08 when `use mpi_f08'
#                                  works (the type(MPI_Comm) interfaces)
#   HAVE_MPI_F08 (conditional)     the same, for the tests
#   darray_fortran_msg             one line for the configure summary
# A Fortran compiler that does not work is an error with --enable-fortran,
# a notice otherwise.
AC_DEFUN([DARRAY_FORTRAN_CHECKS], [
darray_fortran_msg=
DARRAY_FC_DEFS=
AS_IF([test "x$enable_fortran" = xno],
  [darray_fortran_msg="no (--disable-fortran)"],
  [test -z "$FC" || test "x$FC" = xno],
  [darray_fortran_msg="no (no MPI Fortran compiler among: $darray_fc_list; set FC)"],
  [AC_LANG_PUSH([Fortran])
   AC_MSG_CHECKING([whether $FC compiles Fortran])
   AC_COMPILE_IFELSE([AC_LANG_PROGRAM([], [])],
     [AC_MSG_RESULT([yes])],
     [AC_MSG_RESULT([no])
      darray_fortran_msg="no ($FC does not compile a Fortran program; set FC)"])
   AS_IF([test -z "$darray_fortran_msg"],
     [AC_FC_PP_SRCEXT([F90], [],
        [darray_fortran_msg="no ($FC cannot preprocess .F90 files)"])])
   AS_IF([test -z "$darray_fortran_msg"],
     [AC_MSG_CHECKING([whether $FC links MPI programs with `use mpi'])
      AC_LINK_IFELSE([AC_LANG_PROGRAM([], [[
      use mpi
      integer :: ierr
      call MPI_Init(ierr)
      call MPI_Finalize(ierr)]])],
        [AC_MSG_RESULT([yes])],
        [AC_MSG_RESULT([no])
         darray_fortran_msg="no ($FC cannot link a program that uses the mpi module)"])])
   AS_IF([test -z "$darray_fortran_msg"],
     [AC_MSG_CHECKING([whether $FC accepts assumed-type buffers, type(*)])
      AC_COMPILE_IFELSE([AC_LANG_SOURCE([[
      module conftest_mod
      use iso_c_binding
      interface
        function f(buf) bind(c, name="f")
          import :: c_int
          type(*), dimension(*), intent(in) :: buf
          integer(c_int) :: f
        end function f
      end interface
      end module conftest_mod]])],
        [AC_MSG_RESULT([yes])],
        [AC_MSG_RESULT([no])
         darray_fortran_msg="no ($FC lacks assumed-type dummies, type(*))"])])
   dnl The nonblocking calls' buffers: assumed-rank, checked with
   dnl is_contiguous (Fortran 2018), their address taken with c_loc.
   AS_IF([test -z "$darray_fortran_msg"],
     [AC_MSG_CHECKING([whether $FC accepts assumed-rank buffers and is_contiguous])
      AC_COMPILE_IFELSE([AC_LANG_SOURCE([[
      module conftest_mod
      use iso_c_binding
      contains
      subroutine g(buf, p)
        type(*), dimension(..), intent(in), target, asynchronous :: buf
        type(c_ptr), intent(out) :: p
        p = c_null_ptr
        if (size(buf) /= 0 .and. is_contiguous(buf)) p = c_loc(buf)
      end subroutine g
      end module conftest_mod]])],
        [AC_MSG_RESULT([yes])],
        [AC_MSG_RESULT([no])
         darray_fortran_msg="no ($FC lacks assumed-rank dummies or is_contiguous)"])])
   AS_IF([test -z "$darray_fortran_msg"],
     [AC_FC_MODULE_FLAG([],
        [darray_fortran_msg="no (cannot find $FC's module search flag)"])])
   AS_IF([test -z "$darray_fortran_msg"],
     [AC_FC_MODULE_OUTPUT_FLAG([],
        [darray_fortran_msg="no (cannot find $FC's module output flag)"])])
   AS_IF([test -z "$darray_fortran_msg"],
     [AC_MSG_CHECKING([whether $FC has the mpi_f08 module])
      AC_COMPILE_IFELSE([AC_LANG_PROGRAM([], [[
      use mpi_f08
      type(MPI_Comm) :: c
      c = MPI_COMM_WORLD]])],
        [AC_MSG_RESULT([yes])
         DARRAY_FC_DEFS="-DDARRAY_HAVE_MPI_F08"
         darray_fortran_msg="yes ($FC; mpi and mpi_f08 communicators)"],
        [AC_MSG_RESULT([no])
         darray_fortran_msg="yes ($FC; mpi communicators only: no mpi_f08)"])])
   AC_LANG_POP([Fortran])
   AS_CASE([$darray_fortran_msg],
     [yes*], [enable_fortran=yes],
     [AS_IF([test "x$enable_fortran" = xyes],
        [AC_MSG_ERROR([--enable-fortran: $darray_fortran_msg])])
      enable_fortran=no])])
AC_MSG_NOTICE([Fortran module: $darray_fortran_msg])
AC_SUBST([DARRAY_FC_DEFS])
AM_CONDITIONAL([BUILD_FORTRAN], [test "x$enable_fortran" = xyes])
AM_CONDITIONAL([HAVE_MPI_F08],
  [test "x$enable_fortran" = xyes && test -n "$DARRAY_FC_DEFS"])
])
