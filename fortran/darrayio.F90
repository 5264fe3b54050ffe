! SPDX-License-Identifier: BSD-3-Clause
! Copyright (c) 2026 the darrayio authors (AUTHORS)
!
! darrayio.F90 - the Fortran interface of darrayio: module darrayio.
!
! Fortran 2008 with ISO_C_BINDING, plus the assumed-type buffers of TS 29113
! (type(*), dimension(..)), so darray_write(f, a, u) takes any array as it
! is declared, its size and strides known. The module calls the C
! functions of include/darrayio.h directly; fortran/darrayio_shim.c
! converts MPI handles, catches the text of the printing calls and passes
! the read and write calls' buffers (their descriptors) to darray_xfer.
! The preprocessor is used here only, never in user code:
! DARRAY_HAVE_MPI_F08 adds the type(MPI_Comm) interfaces.
!
! Conventions (doc/porting.md, "Fortran", has the call-by-call table):
!  - Dimension k of the Fortran API (k = 1..ndims) is dimension k-1 of the C
!    API: gsizes, dist, ghost, padded, psizes, start, count all list the
!    dimensions in the order the Fortran array declares them. A Fortran
!    array u(nx, ny, nz) is described with gsizes = [nx, ny, nz].
!  - New descriptions default to Fortran order in memory AND in the file
!    (dimension 1 fastest), so u(nx, ny, nz) written whole is the file a
!    Fortran `write' of u would give. darray_set_storage_order and
!    darray_set_memory_layout change either.
!  - Indices are 1-based: global indices, section starts, local (interior)
!    indices, cell numbers (1..ncells), dataset member numbers (1..n) and
!    storage permutations (1..ndims, slowest varying dimension first). Ranks stay 0-based as in MPI; byte
!    offsets and displacements are bytes from 0.
!  - Sizes, counts, indices and offsets are integer(int64).
!  - Every call ends with an optional integer ierr. Present: it receives
!    the status code (DARRAY_SUCCESS or a negative DARRAY_E* constant).
!    Absent: a failure prints "darrayio: <call>: <code name>: <message>" on
!    the error unit and ends the program with error stop (exit status 1).
!  - Messages speak Fortran: the indices they quote are 1-based and entries
!    of argument arrays are written name(k), as in "cell = 0 is not in
!    [1, 1]" or "start(2) = 0, count(2) = 4: not inside [1, 8]" (the module
!    sets darray_set_index_style around its C calls; ranks stay 0-based).
!  - Read and write calls check the buffer's size: buf is the actual
!    argument as declared (assumed type and rank), its size in bytes goes
!    to the library (darray_xfer), and a buffer smaller than what the call
!    moves is DARRAY_EBUFSIZE on every process, nothing moved, the message
!    naming both sizes; an assumed-size actual argument cannot be checked.
!    A strided one is copied (see "reads and writes" below).
!  - Argument arrays must have ndims entries (outputs: at least ndims); a
!    wrong length is DARRAY_EINVAL, found by the module before C is called
!    (darray_errmsg does not hold that message; the stop message does).
!  - Strings are ordinary Fortran strings: trailing blanks of inputs are
!    ignored, outputs are blank-padded or allocatable, never NUL-terminated.
!  - Nonblocking calls (include/darrayio.h, "Nonblocking reads and
!    writes"): a request is an integer(int64), DARRAY_REQUEST_NULL when not
!    pending. The buffer of a pending darray_iwrite, darray_iread or their
!    _section forms is used until the request completes, so it must be the
!    program's array itself: a contiguous variable (not an expression, not
!    a strided section, which would have to be copied; the module refuses
!    a non-contiguous one: DARRAY_EINVAL at the wait, on every process),
!    declared asynchronous where the program uses it
!    while the request is pending (as for MPI's nonblocking calls).
!    darray_bwrite and darray_bwrite_section copy at post and take any
!    array.
module darrayio
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: int64, real64, error_unit, &
    output_unit
#ifdef DARRAY_HAVE_MPI_F08
  use mpi_f08, only: MPI_Comm, MPI_Info
#endif
  implicit none
  private

  ! ---- constants (the values of include/darrayio.h) ----------------------
  integer, parameter, public :: DARRAY_MAX_DIMS = 8
  integer, parameter, public :: DARRAY_DEFAULT_ARG = -1
  integer, parameter, public :: DARRAY_ADVISE_MAX_NPROCS = 16777216

  ! The version of this module, as the DARRAYIO_VERSION_* macros of
  ! darrayio.h give the header's (configure read them from that header and
  ! passes them as DARRAY_F_VERSION_*). darray_get_version answers with the
  ! library's: a program compares the two to check that they agree.
  integer, parameter, public :: DARRAYIO_VERSION_MAJOR = DARRAY_F_VERSION_MAJOR
  integer, parameter, public :: DARRAYIO_VERSION_MINOR = DARRAY_F_VERSION_MINOR
  integer, parameter, public :: DARRAYIO_VERSION_PATCH = DARRAY_F_VERSION_PATCH

  integer, parameter, public :: DARRAY_SUCCESS = 0, DARRAY_EINVAL = -1, &
    DARRAY_ENULL = -2, DARRAY_ENDIMS = -3, DARRAY_ESIZE = -4, &
    DARRAY_ETYPE = -5, DARRAY_EDIST = -6, DARRAY_EGRID = -7, &
    DARRAY_EORDER = -8, DARRAY_EGHOST = -9, DARRAY_EDISP = -10, &
    DARRAY_ESTATE = -11, DARRAY_EHINT = -12, DARRAY_EMODE = -13, &
    DARRAY_ECOMM = -14, DARRAY_EINDEX = -15, DARRAY_EBADHANDLE = -16, &
    DARRAY_EOVERLAP = -17, DARRAY_ELIMIT = -18, DARRAY_EFORMAT = -19, &
    DARRAY_ENOTSUP = -20, DARRAY_EREQUEST = -21, DARRAY_EBUFSIZE = -22, &
    DARRAY_EINCONSISTENT = -100, DARRAY_EREMOTE = -101, &
    DARRAY_EIO = -200, DARRAY_ENOSPC = -201, DARRAY_EACCESS = -202, &
    DARRAY_ENOENT = -203, DARRAY_EEOF = -204, DARRAY_ENOMEM = -205, &
    DARRAY_EMPI = -206, DARRAY_EISDIR = -207, DARRAY_ELOCK = -208, &
    DARRAY_ECRC = -209

  ! darray_index_style_t (include/darrayio.h).
  integer(c_int), parameter :: DARRAY_INDEX_C_C = 0, DARRAY_INDEX_FORTRAN_C = 1
  ! The bits of darray_xfer_how_t (include/darrayio.h), for the shim.
  integer(c_int), parameter :: XF_WRITE = 1, XF_SECTION = 2, XF_POST = 4, &
    XF_BUFFERED = 8

  !> A request that is not pending (darray_request_t in C is int64_t): what
  !> completion leaves in a request, and what waiting on returns at once.
  integer(int64), parameter, public :: DARRAY_REQUEST_NULL = 0_int64

  !> Longest name of a dataset member (darray_define), in characters.
  integer, parameter, public :: DARRAY_NAME_MAX = 200

  ! Element types. Fortran kinds: DARRAY_DOUBLE is real(real64),
  ! DARRAY_FLOAT real(real32), DARRAY_INT32 integer(int32), and so on.
  integer, parameter, public :: DARRAY_CHAR = 1, DARRAY_INT8 = 2, &
    DARRAY_UINT8 = 3, DARRAY_INT16 = 4, DARRAY_UINT16 = 5, &
    DARRAY_INT32 = 6, DARRAY_UINT32 = 7, DARRAY_INT64 = 8, &
    DARRAY_UINT64 = 9, DARRAY_FLOAT = 10, DARRAY_DOUBLE = 11, &
    DARRAY_LONG_DOUBLE = 12, DARRAY_OPAQUE = 13

  integer, parameter, public :: DARRAY_DIST_NONE = 0, DARRAY_DIST_BLOCK = 1, &
    DARRAY_DIST_CYCLIC = 2, DARRAY_DIST_MULTIPARTITION = 3

  integer, parameter, public :: DARRAY_ORDER_C = 1, DARRAY_ORDER_FORTRAN = 2, &
    DARRAY_ORDER_PERM = 3

  integer, parameter, public :: DARRAY_MODE_RDONLY = 1, DARRAY_MODE_RDWR = 2, &
    DARRAY_MODE_CREATE = 4, DARRAY_MODE_TRUNC = 8

  integer, parameter, public :: DARRAY_VERDICT_CONFORMING = 0, &
    DARRAY_VERDICT_FRAGMENTED = 1, DARRAY_VERDICT_INTERLEAVED = 2

  ! ---- handles and records ----------------------------------------------
  !> An array description (darray_t). Null until darray_create.
  type, public :: darray_t
    type(c_ptr) :: p = c_null_ptr
  end type darray_t

  !> An open file (darray_file_t). Null until darray_file_open.
  type, public :: darray_file_t
    type(c_ptr) :: p = c_null_ptr
  end type darray_file_t

  !> I/O counters of one process on one file (darray_stats_t).
  type, public :: darray_stats_t
    integer(int64) :: bytes_read = 0, bytes_written = 0, read_calls = 0, &
      write_calls = 0, bytes_exchanged = 0, cycles = 0, &
      peak_temp_bytes = 0, calls = 0, io_ns = 0, exchange_ns = 0, &
      call_ns = 0
    character(len=16) :: strategy = ''
    integer(int64) :: collectives = 0, bytes_copied = 0, messages = 0
  end type darray_stats_t

  !> Sums and maxima of the I/O counters over all processes of a file
  !> (darray_stats_summary_t; every field 64-bit, so the C struct itself).
  type, public, bind(c) :: darray_stats_summary_t
    integer(c_int64_t) :: nprocs
    integer(c_int64_t) :: bytes_read_sum, bytes_read_max
    integer(c_int64_t) :: bytes_written_sum, bytes_written_max
    integer(c_int64_t) :: read_calls_sum, read_calls_max
    integer(c_int64_t) :: write_calls_sum, write_calls_max
    integer(c_int64_t) :: bytes_exchanged_sum, bytes_exchanged_max
    integer(c_int64_t) :: cycles_sum, cycles_max
    integer(c_int64_t) :: calls_sum, calls_max
    integer(c_int64_t) :: io_ns_sum, io_ns_max
    integer(c_int64_t) :: exchange_ns_sum, exchange_ns_max
    integer(c_int64_t) :: call_ns_sum, call_ns_max
    integer(c_int64_t) :: peak_temp_bytes_max
    integer(c_int64_t) :: collectives_sum, collectives_max
    integer(c_int64_t) :: bytes_copied_sum, bytes_copied_max
    integer(c_int64_t) :: messages_sum, messages_max
  end type darray_stats_summary_t

  !> One strategy's plan of a whole-array call counted on paper
  !> (darray_plan_row_t; darray_plan_virtual). Counters are -1 where the
  !> strategy does not count them on paper.
  type, public :: darray_plan_row_t
    character(len=16) :: strategy = ''
    logical :: candidate = .false., chosen = .false.
    character(len=200) :: why = ''
    real(real64) :: estimate_ns = 0
    integer(int64) :: file_calls_max = 0, file_calls_sum = 0, &
      file_bytes_max = 0, sent_bytes_max = 0, sent_bytes_sum = 0, &
      messages_max = 0, messages_sum = 0, cycles = 0, aggregators = 0, &
      agg_pieces_max = 0, temp_bytes_max = 0, metadata_bytes_max = 0, &
      romio_metadata_max = 0, romio_metadata_sum = 0
    integer :: servers_per_agg_max = 0, aggs_per_server_max = 0
    real(real64) :: plan_ns = 0
  end type darray_plan_row_t

  ! The C struct darray_plan_row_t, field for field.
  type, bind(c) :: c_plan_row_t
    character(kind=c_char) :: strategy(16)
    integer(c_int) :: candidate, chosen
    character(kind=c_char) :: why(200)
    real(c_double) :: estimate_ns
    integer(c_int64_t) :: counters(14)
    integer(c_int) :: servers_per_agg_max, aggs_per_server_max
    real(c_double) :: plan_ns
  end type c_plan_row_t

  !> A consumer of a dataset, for the storage advisor (darray_consumer_t).
  !> Only the first ndims entries of dist, dargs and psizes are read.
  type, public :: darray_consumer_t
    character(len=64) :: name = ''
    real(real64) :: weight = 0
    integer :: nprocs = 0
    integer :: dist(DARRAY_MAX_DIMS) = DARRAY_DIST_NONE
    integer(int64) :: dargs(DARRAY_MAX_DIMS) = 0
    integer :: psizes(DARRAY_MAX_DIMS) = 0
  end type darray_consumer_t

  !> One consumer's access under a storage order (darray_consumer_verdict_t;
  !> no indices in it, so it is the C struct itself).
  type, public, bind(c) :: darray_consumer_verdict_t
    integer(c_int) :: verdict
    integer(c_int) :: psizes(DARRAY_MAX_DIMS)
    integer(c_int64_t) :: max_runs, total_runs, min_run, max_run
    integer(c_int) :: nonconforming
  end type darray_consumer_verdict_t

  !> The advisor's answer (darray_advice_t); perm is 1-based, slowest
  !> varying dimension first, ready for darray_set_storage_order.
  type, public :: darray_advice_t
    integer :: perm(DARRAY_MAX_DIMS) = 0
    real(real64) :: conforming_weight = 0, collective_weight = 0, &
      total_weight = 0, weighted_runs = 0
    integer :: ncandidates = 0
    logical :: all_orders = .false.
  end type darray_advice_t

  !> One array of a dataset (darray_member_info_t, from darray_inquire).
  !> gsizes list the dimensions as the array was described (dimension 1
  !> first, as everywhere in this module); perm is the storage order for
  !> darray_set_storage_order: 1-based, slowest varying dimension first.
  !> crc32 is the recorded CRC-32 (0 .. 2**32-1) when has_crc. status is
  !> DARRAY_SUCCESS for a member darrayio reads, else the code darray_define
  !> gives for it (DARRAY_ENOTSUP: listed, not read); scalar: a NumPy 0-d
  !> array, described as one element (ndims 1, gsizes(1) 1); descr: NumPy's
  !> name of its element type ('<f8', '|O').
  type, public :: darray_member_info_t
    character(len=DARRAY_NAME_MAX) :: name = ''
    integer :: type = 0
    integer(int64) :: elem_size = 0
    integer :: ndims = 0
    integer(int64) :: gsizes(DARRAY_MAX_DIMS) = 0
    integer :: order = 0
    integer :: perm(DARRAY_MAX_DIMS) = 0
    integer(int64) :: offset = 0, bytes = 0
    logical :: has_crc = .false.
    integer(int64) :: crc32 = 0
    integer :: status = 0
    logical :: scalar = .false.
    character(len=31) :: descr = ''
  end type darray_member_info_t

  type, bind(c) :: c_member_info_t
    character(kind=c_char) :: name(DARRAY_NAME_MAX + 1)
    integer(c_int) :: type
    integer(c_int64_t) :: elem_size
    integer(c_int) :: ndims
    integer(c_int64_t) :: gsizes(DARRAY_MAX_DIMS)
    integer(c_int) :: order
    integer(c_int) :: perm(DARRAY_MAX_DIMS)
    integer(c_int64_t) :: offset, bytes
    integer(c_int) :: has_crc
    integer(c_int32_t) :: crc32
    integer(c_int) :: status, scalar
    character(kind=c_char) :: descr(32)
  end type c_member_info_t

  type, bind(c) :: c_stats_t
    integer(c_int64_t) :: v(11)
    character(kind=c_char) :: strategy(16)
    integer(c_int64_t) :: w(3) ! collectives, bytes_copied, messages
  end type c_stats_t

  type, bind(c) :: c_consumer_t
    type(c_ptr) :: name
    real(c_double) :: weight
    integer(c_int) :: nprocs
    integer(c_int) :: dist(DARRAY_MAX_DIMS)
    integer(c_int64_t) :: dargs(DARRAY_MAX_DIMS)
    integer(c_int) :: psizes(DARRAY_MAX_DIMS)
  end type c_consumer_t

  type, bind(c) :: c_advice_t
    integer(c_int) :: perm(DARRAY_MAX_DIMS)
    real(c_double) :: conforming_weight, collective_weight, total_weight, &
      weighted_runs
    integer(c_int) :: ncandidates, all_orders
  end type c_advice_t

  ! ---- public procedures --------------------------------------------------
  public :: darray_get_version, darray_version_string
  public :: darray_strerror, darray_err_name, darray_errmsg, &
    darray_file_errmsg
  public :: darray_create, darray_free, darray_set_elem_size, &
    darray_set_distribution, darray_set_grid, darray_set_storage_order, &
    darray_set_displacement, darray_set_memory_layout, darray_commit
  public :: darray_global_shape, darray_elem_size, darray_grid, &
    darray_num_cells, darray_local_shape, darray_local_start, &
    darray_local_count, darray_local_bytes, darray_locate, &
    darray_global_index, darray_file_offset
  public :: darray_file_open, darray_file_close, darray_file_sync, &
    darray_file_delete, darray_write, darray_read, darray_write_section, darray_read_section, &
    darray_explain, darray_file_get_stats, darray_file_reset_stats, &
    darray_file_get_hint, darray_file_get_info
  public :: darray_file_stats_summary
  public :: darray_iwrite, darray_iread, darray_iwrite_section, &
    darray_iread_section, darray_bwrite, darray_bwrite_section, &
    darray_wait, darray_test, darray_wait_all, darray_file_isync
  public :: darray_dataset_open, darray_define, darray_num_members, &
    darray_inquire, darray_verify
  public :: darray_advise_storage, darray_advise_order, darray_advise_report
  public :: darray_create_virtual, darray_plan_virtual

  !> darray_create(comm, gsizes, type, a [, ierr]): comm is the mpi
  !> module's integer handle or mpi_f08's type(MPI_Comm).
  interface darray_create
    module procedure create_int
#ifdef DARRAY_HAVE_MPI_F08
    module procedure create_f08
#endif
  end interface darray_create

  !> darray_file_open(comm, path, mode, f [, info] [, ierr]): comm and info
  !> both integer handles, or both mpi_f08 types.
  interface darray_file_open
    module procedure file_open_int
#ifdef DARRAY_HAVE_MPI_F08
    module procedure file_open_f08
#endif
  end interface darray_file_open

  !> darray_file_get_info(f, info [, ierr]): info is an integer handle or an
  !> mpi_f08 type(MPI_Info), a new info the caller frees with MPI_Info_free.
  interface darray_file_get_info
    module procedure file_get_info_int
#ifdef DARRAY_HAVE_MPI_F08
    module procedure file_get_info_f08
#endif
  end interface darray_file_get_info

  !> darray_dataset_open(comm, path, mode, f [, info] [, ierr]): as
  !> darray_file_open, for a .npy or .npz file.
  interface darray_dataset_open
    module procedure dataset_open_int
#ifdef DARRAY_HAVE_MPI_F08
    module procedure dataset_open_f08
#endif
  end interface darray_dataset_open

  ! ---- the C functions ----------------------------------------------------
  interface
    function c_strlen(s) bind(c, name="strlen")
      import :: c_ptr, c_size_t
      type(c_ptr), value :: s
      integer(c_size_t) :: c_strlen
    end function c_strlen
    function c_get_version(major, minor, patch) &
        bind(c, name="darray_get_version")
      import :: c_int
      integer(c_int), intent(out) :: major, minor, patch
      integer(c_int) :: c_get_version
    end function c_get_version
    function c_version_string() bind(c, name="darray_version_string")
      import :: c_ptr
      type(c_ptr) :: c_version_string
    end function c_version_string
    function c_strerror(code) bind(c, name="darray_strerror")
      import :: c_int, c_ptr
      integer(c_int), value :: code
      type(c_ptr) :: c_strerror
    end function c_strerror
    function c_err_name(code) bind(c, name="darray_err_name")
      import :: c_int, c_ptr
      integer(c_int), value :: code
      type(c_ptr) :: c_err_name
    end function c_err_name
    function c_errmsg(a) bind(c, name="darray_errmsg")
      import :: c_ptr
      type(c_ptr), value :: a
      type(c_ptr) :: c_errmsg
    end function c_errmsg
    function c_file_errmsg(f) bind(c, name="darray_file_errmsg")
      import :: c_ptr
      type(c_ptr), value :: f
      type(c_ptr) :: c_file_errmsg
    end function c_file_errmsg

    function c_create(comm, ndims, gsizes, type, a) &
        bind(c, name="darray_f_create")
      import :: c_int, c_int64_t, c_ptr
      integer(c_int), value :: comm, ndims, type
      integer(c_int64_t), intent(in) :: gsizes(*)
      type(c_ptr), intent(out) :: a
      integer(c_int) :: c_create
    end function c_create
    function c_free(a) bind(c, name="darray_free")
      import :: c_int, c_ptr
      type(c_ptr), intent(inout) :: a
      integer(c_int) :: c_free
    end function c_free
    function c_set_elem_size(a, size) bind(c, name="darray_set_elem_size")
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: a
      integer(c_int64_t), value :: size
      integer(c_int) :: c_set_elem_size
    end function c_set_elem_size
    function c_set_distribution(a, dist, dargs) &
        bind(c, name="darray_set_distribution")
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: a
      integer(c_int), intent(in) :: dist(*)
      integer(c_int64_t), intent(in) :: dargs(*)
      integer(c_int) :: c_set_distribution
    end function c_set_distribution
    function c_set_grid(a, psizes) bind(c, name="darray_set_grid")
      import :: c_int, c_ptr
      type(c_ptr), value :: a
      integer(c_int), intent(in) :: psizes(*)
      integer(c_int) :: c_set_grid
    end function c_set_grid
    function c_set_storage_order(a, order, perm) &
        bind(c, name="darray_set_storage_order")
      import :: c_int, c_ptr
      type(c_ptr), value :: a
      integer(c_int), value :: order
      integer(c_int), intent(in) :: perm(*)
      integer(c_int) :: c_set_storage_order
    end function c_set_storage_order
    function c_set_displacement(a, disp) bind(c, name="darray_set_displacement")
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: a
      integer(c_int64_t), value :: disp
      integer(c_int) :: c_set_displacement
    end function c_set_displacement
    function c_set_memory_layout(a, order, ghost, padded) &
        bind(c, name="darray_set_memory_layout")
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: a
      integer(c_int), value :: order
      integer(c_int64_t), intent(in) :: ghost(*), padded(*)
      integer(c_int) :: c_set_memory_layout
    end function c_set_memory_layout
    function c_commit(a) bind(c, name="darray_commit")
      import :: c_int, c_ptr
      type(c_ptr), value :: a
      integer(c_int) :: c_commit
    end function c_commit

    function c_global_shape(a, ndims, gsizes) &
        bind(c, name="darray_global_shape")
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: a
      integer(c_int), intent(out) :: ndims
      integer(c_int64_t), intent(out) :: gsizes(*)
      integer(c_int) :: c_global_shape
    end function c_global_shape
    function c_elem_size(a, size) bind(c, name="darray_elem_size")
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: a
      integer(c_int64_t), intent(out) :: size
      integer(c_int) :: c_elem_size
    end function c_elem_size
    function c_grid(a, psizes) bind(c, name="darray_grid")
      import :: c_int, c_ptr
      type(c_ptr), value :: a
      integer(c_int), intent(out) :: psizes(*)
      integer(c_int) :: c_grid
    end function c_grid
    function c_num_cells(a, ncells) bind(c, name="darray_num_cells")
      import :: c_int, c_ptr
      type(c_ptr), value :: a
      integer(c_int), intent(out) :: ncells
      integer(c_int) :: c_num_cells
    end function c_num_cells
    function c_local_shape(a, cell, lshape) bind(c, name="darray_local_shape")
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: a
      integer(c_int), value :: cell
      integer(c_int64_t), intent(out) :: lshape(*)
      integer(c_int) :: c_local_shape
    end function c_local_shape
    function c_local_start(a, cell, start) bind(c, name="darray_local_start")
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: a
      integer(c_int), value :: cell
      integer(c_int64_t), intent(out) :: start(*)
      integer(c_int) :: c_local_start
    end function c_local_start
    function c_local_count(a, count) bind(c, name="darray_local_count")
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: a
      integer(c_int64_t), intent(out) :: count
      integer(c_int) :: c_local_count
    end function c_local_count
    function c_local_bytes(a, bytes) bind(c, name="darray_local_bytes")
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: a
      integer(c_int64_t), intent(out) :: bytes
      integer(c_int) :: c_local_bytes
    end function c_local_bytes
    function c_locate(a, gidx, rank, cell, lidx, offset) &
        bind(c, name="darray_locate")
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: a
      integer(c_int64_t), intent(in) :: gidx(*)
      integer(c_int), intent(out) :: rank, cell
      integer(c_int64_t), intent(out) :: lidx(*), offset
      integer(c_int) :: c_locate
    end function c_locate
    function c_global_index(a, rank, cell, lidx, gidx) &
        bind(c, name="darray_global_index")
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: a
      integer(c_int), value :: rank, cell
      integer(c_int64_t), intent(in) :: lidx(*)
      integer(c_int64_t), intent(out) :: gidx(*)
      integer(c_int) :: c_global_index
    end function c_global_index
    function c_file_offset(a, gidx, offset) bind(c, name="darray_file_offset")
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: a
      integer(c_int64_t), intent(in) :: gidx(*)
      integer(c_int64_t), intent(out) :: offset
      integer(c_int) :: c_file_offset
    end function c_file_offset

    function c_file_open(comm, path, mode, info, has_info, f) &
        bind(c, name="darray_f_file_open")
      import :: c_int, c_char, c_ptr
      integer(c_int), value :: comm, mode, info, has_info
      character(kind=c_char), intent(in) :: path(*)
      type(c_ptr), intent(out) :: f
      integer(c_int) :: c_file_open
    end function c_file_open
    function c_file_close(f) bind(c, name="darray_file_close")
      import :: c_int, c_ptr
      type(c_ptr), intent(inout) :: f
      integer(c_int) :: c_file_close
    end function c_file_close
    function c_file_sync(f) bind(c, name="darray_file_sync")
      import :: c_int, c_ptr
      type(c_ptr), value :: f
      integer(c_int) :: c_file_sync
    end function c_file_sync
    function c_file_delete(path, info, has_info) &
        bind(c, name="darray_f_file_delete")
      import :: c_int, c_char
      character(kind=c_char), intent(in) :: path(*)
      integer(c_int), value :: info, has_info
      integer(c_int) :: c_file_delete
    end function c_file_delete
    ! Every read and write call (fortran/darrayio_shim.c): the buffer as
    ! the actual argument's descriptor, so that its size is known and a
    ! strided one can be copied; how is an OR of the DARRAY_XFER_* bits of
    ! darrayio.h; refuse and why: a failure the module found, which the
    ! call agrees on with the other processes instead of moving bytes.
    function c_f_xfer(f, a, how, start, count, order, buf, refuse, why, &
        req) bind(c, name="darray_f_xfer")
      import :: c_int, c_int64_t, c_ptr, c_char
      type(c_ptr), value :: f, a
      integer(c_int), value :: how, order, refuse
      integer(c_int64_t), intent(in) :: start(*), count(*)
      type(*), dimension(..), asynchronous :: buf
      character(kind=c_char), intent(in) :: why(*)
      integer(c_int64_t), intent(inout) :: req
      integer(c_int) :: c_f_xfer
    end function c_f_xfer
    ! The terms of this thread's messages (DARRAY_INDEX_FORTRAN: 1-based).
    function c_set_index_style(style) bind(c, name="darray_set_index_style")
      import :: c_int
      integer(c_int), value :: style
      integer(c_int) :: c_set_index_style
    end function c_set_index_style
    function c_explain(f, a, write, text, len) bind(c, name="darray_f_explain")
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: f, a
      integer(c_int), value :: write
      type(c_ptr), intent(out) :: text
      integer(c_int64_t), intent(out) :: len
      integer(c_int) :: c_explain
    end function c_explain
    subroutine c_free_text(text) bind(c, name="darray_f_free_text")
      import :: c_ptr
      type(c_ptr), value :: text
    end subroutine c_free_text
    function c_file_get_stats(f, stats) bind(c, name="darray_file_get_stats")
      import :: c_int, c_ptr, c_stats_t
      type(c_ptr), value :: f
      type(c_stats_t), intent(out) :: stats
      integer(c_int) :: c_file_get_stats
    end function c_file_get_stats
    function c_file_reset_stats(f) bind(c, name="darray_file_reset_stats")
      import :: c_int, c_ptr
      type(c_ptr), value :: f
      integer(c_int) :: c_file_reset_stats
    end function c_file_reset_stats
    function c_file_stats_summary(f, s) &
        bind(c, name="darray_file_stats_summary")
      import :: c_int, c_ptr, darray_stats_summary_t
      type(c_ptr), value :: f
      type(darray_stats_summary_t), intent(inout) :: s
      integer(c_int) :: c_file_stats_summary
    end function c_file_stats_summary
    function c_file_get_hint(f, key, value, len) &
        bind(c, name="darray_file_get_hint")
      import :: c_int, c_char, c_ptr
      type(c_ptr), value :: f
      character(kind=c_char), intent(in) :: key(*)
      character(kind=c_char), intent(out) :: value(*)
      integer(c_int), value :: len
      integer(c_int) :: c_file_get_hint
    end function c_file_get_hint
    function c_file_get_info(f, info) bind(c, name="darray_f_file_get_info")
      import :: c_int, c_ptr
      type(c_ptr), value :: f
      integer(c_int), intent(out) :: info
      integer(c_int) :: c_file_get_info
    end function c_file_get_info

    function c_file_isync(f, req) bind(c, name="darray_file_isync")
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: f
      integer(c_int64_t), intent(out) :: req
      integer(c_int) :: c_file_isync
    end function c_file_isync
    function c_wait(f, req) bind(c, name="darray_wait")
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: f
      integer(c_int64_t), intent(inout) :: req
      integer(c_int) :: c_wait
    end function c_wait
    function c_test(f, req, flag) bind(c, name="darray_test")
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: f
      integer(c_int64_t), intent(inout) :: req
      integer(c_int), intent(out) :: flag
      integer(c_int) :: c_test
    end function c_test
    function c_wait_all(f, n, reqs, codes) bind(c, name="darray_wait_all")
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: f
      integer(c_int), value :: n
      integer(c_int64_t), intent(inout) :: reqs(*)
      integer(c_int), intent(out) :: codes(*)
      integer(c_int) :: c_wait_all
    end function c_wait_all

    function c_dataset_open(comm, path, mode, info, has_info, f) &
        bind(c, name="darray_f_dataset_open")
      import :: c_int, c_char, c_ptr
      integer(c_int), value :: comm, mode, info, has_info
      character(kind=c_char), intent(in) :: path(*)
      type(c_ptr), intent(out) :: f
      integer(c_int) :: c_dataset_open
    end function c_dataset_open
    function c_define(f, name, a) bind(c, name="darray_define")
      import :: c_int, c_char, c_ptr
      type(c_ptr), value :: f, a
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int) :: c_define
    end function c_define
    function c_num_members(f, n) bind(c, name="darray_num_members")
      import :: c_int, c_ptr
      type(c_ptr), value :: f
      integer(c_int), intent(out) :: n
      integer(c_int) :: c_num_members
    end function c_num_members
    function c_inquire(f, index, info) bind(c, name="darray_inquire")
      import :: c_int, c_ptr, c_member_info_t
      type(c_ptr), value :: f
      integer(c_int), value :: index
      type(c_member_info_t), intent(out) :: info
      integer(c_int) :: c_inquire
    end function c_inquire
    function c_verify(f) bind(c, name="darray_verify")
      import :: c_int, c_ptr
      type(c_ptr), value :: f
      integer(c_int) :: c_verify
    end function c_verify

    function c_advise_storage(ndims, gsizes, esize, n, consumers, advice, &
        verdicts) bind(c, name="darray_advise_storage")
      import :: c_int, c_int64_t, c_consumer_t, c_advice_t, &
        darray_consumer_verdict_t
      integer(c_int), value :: ndims, n
      integer(c_int64_t), intent(in) :: gsizes(*)
      integer(c_int64_t), value :: esize
      type(c_consumer_t), intent(in) :: consumers(*)
      type(c_advice_t), intent(out) :: advice
      type(darray_consumer_verdict_t), intent(out) :: verdicts(*)
      integer(c_int) :: c_advise_storage
    end function c_advise_storage
    function c_advise_order(ndims, gsizes, esize, n, consumers, perm, advice, &
        verdicts) bind(c, name="darray_advise_order")
      import :: c_int, c_int64_t, c_consumer_t, c_advice_t, &
        darray_consumer_verdict_t
      integer(c_int), value :: ndims, n
      integer(c_int64_t), intent(in) :: gsizes(*)
      integer(c_int64_t), value :: esize
      type(c_consumer_t), intent(in) :: consumers(*)
      integer(c_int), intent(in) :: perm(*)
      type(c_advice_t), intent(out) :: advice
      type(darray_consumer_verdict_t), intent(out) :: verdicts(*)
      integer(c_int) :: c_advise_order
    end function c_advise_order
    function c_advise_report(ndims, gsizes, esize, n, consumers, text, len) &
        bind(c, name="darray_f_advise_report")
      import :: c_int, c_int64_t, c_ptr, c_consumer_t
      integer(c_int), value :: ndims, n
      integer(c_int64_t), intent(in) :: gsizes(*)
      integer(c_int64_t), value :: esize
      type(c_consumer_t), intent(in) :: consumers(*)
      type(c_ptr), intent(out) :: text
      integer(c_int64_t), intent(out) :: len
      integer(c_int) :: c_advise_report
    end function c_advise_report
    function c_create_virtual(nprocs, ndims, gsizes, type, a) &
        bind(c, name="darray_create_virtual")
      import :: c_int, c_int64_t, c_ptr
      integer(c_int), value :: nprocs, ndims, type
      integer(c_int64_t), intent(in) :: gsizes(*)
      type(c_ptr), intent(out) :: a
      integer(c_int) :: c_create_virtual
    end function c_create_virtual
    function c_plan_virtual(a, info, has_info, write, nrows, rows, n) &
        bind(c, name="darray_f_plan_virtual")
      import :: c_int, c_ptr, c_plan_row_t
      type(c_ptr), value :: a
      integer(c_int), value :: info, has_info, write, nrows
      type(c_plan_row_t), intent(out) :: rows(*)
      integer(c_int), intent(out) :: n
      integer(c_int) :: c_plan_virtual
    end function c_plan_virtual
  end interface

contains

  ! ---- helpers --------------------------------------------------------------

  ! A C string as a Fortran string ('' for a null pointer).
  function c_str(p) result(s)
    type(c_ptr), intent(in) :: p
    character(len=:), allocatable :: s
    character(kind=c_char), pointer :: chars(:)
    integer :: i, n
    if (.not. c_associated(p)) then
      s = ''
      return
    end if
    n = int(c_strlen(p))
    call c_f_pointer(p, chars, [n])
    allocate (character(len=n) :: s)
    do i = 1, n
      s(i:i) = chars(i)
    end do
  end function c_str

  ! A Fortran string, trailing blanks dropped, as a C string.
  pure function to_c(s) result(c)
    character(*), intent(in) :: s
    character(kind=c_char, len=:), allocatable :: c
    c = trim(s) // c_null_char
  end function to_c

  ! An optional `mpi' module info handle as the shims take it: its value
  ! (0 when absent) and whether it was given.
  subroutine info_arg(info, finfo, has)
    integer, intent(in), optional :: info
    integer(c_int), intent(out) :: finfo, has
    finfo = 0
    has = 0
    if (present(info)) then
      finfo = int(info, c_int)
      has = 1
    end if
  end subroutine info_arg

  ! The messages of the C calls that follow, until done, in Fortran's terms:
  ! 1-based indices, argument entries as name(k) (darray_set_index_style).
  subroutine fortran_terms()
    integer(c_int) :: old
    old = c_set_index_style(DARRAY_INDEX_FORTRAN_C)
  end subroutine fortran_terms

  ! The end of every call: hand rc to ierr, or stop on failure with the
  ! message of the handle the call names (ap: array, fp: file; neither: the
  ! thread's last message), or with note when the module found the problem.
  subroutine done(rc, ierr, what, ap, fp, note)
    integer(c_int), intent(in) :: rc
    integer, intent(out), optional :: ierr
    character(*), intent(in) :: what
    type(c_ptr), intent(in), optional :: ap, fp
    character(*), intent(in), optional :: note
    character(len=:), allocatable :: msg
    integer(c_int) :: old
    old = c_set_index_style(DARRAY_INDEX_C_C) ! the program's C calls: C's
    if (present(ierr)) ierr = int(rc)
    if (present(ierr) .or. rc == DARRAY_SUCCESS) return
    if (present(note)) then
      msg = note
    else if (present(fp)) then
      msg = c_str(c_file_errmsg(fp))
    else if (present(ap)) then
      msg = c_str(c_errmsg(ap))
    else
      msg = c_str(c_errmsg(c_null_ptr))
    end if
    if (len(msg) == 0) msg = c_str(c_strerror(rc))
    flush (output_unit)
    write (error_unit, '(a)') 'darrayio: ' // what // ': ' // &
      c_str(c_err_name(rc)) // ': ' // msg
    error stop 1
  end subroutine done

  ! Number of dimensions of a live handle, or a negative code.
  integer(c_int) function ndims_of(a) result(nd)
    type(darray_t), intent(in) :: a
    integer(c_int64_t) :: g(DARRAY_MAX_DIMS)
    integer(c_int) :: rc
    rc = c_global_shape(a%p, nd, g)
    if (rc /= DARRAY_SUCCESS) nd = rc
  end function ndims_of

  ! A length check: rc stays, or becomes DARRAY_EINVAL with a note, when an
  ! argument array has the wrong number of entries for the array's ndims
  ! (inputs exactly ndims, outputs at least ndims). rc carries a negative
  ! ndims_of result through.
  subroutine check_len(rc, note, nd, name, n, output)
    integer(c_int), intent(inout) :: rc
    character(len=:), allocatable, intent(inout) :: note
    integer(c_int), intent(in) :: nd
    character(*), intent(in) :: name
    integer, intent(in) :: n
    logical, intent(in), optional :: output
    character(len=24) :: got, want
    logical :: out
    if (rc /= DARRAY_SUCCESS) return
    if (nd < 0) then
      rc = nd
      return
    end if
    out = .false.
    if (present(output)) out = output
    if (n == nd .or. (out .and. n > nd)) return
    write (got, '(i0)') n
    write (want, '(i0)') nd
    rc = DARRAY_EINVAL
    note = name // ' has ' // trim(got) // ' entries, the array has ' // &
      trim(want) // ' dimensions'
  end subroutine check_len

  ! Stop or return for a call whose arguments the module checked: note
  ! explains a module-found DARRAY_EINVAL.
  subroutine done_a(rc, ierr, what, a, note)
    integer(c_int), intent(in) :: rc
    integer, intent(out), optional :: ierr
    character(*), intent(in) :: what
    type(darray_t), intent(in) :: a
    character(len=:), allocatable, intent(in) :: note
    if (allocated(note)) then
      call done(rc, ierr, what, note=note)
    else
      call done(rc, ierr, what, ap=a%p)
    end if
  end subroutine done_a

  subroutine done_f(rc, ierr, what, f, note)
    integer(c_int), intent(in) :: rc
    integer, intent(out), optional :: ierr
    character(*), intent(in) :: what
    type(darray_file_t), intent(in) :: f
    character(len=:), allocatable, intent(in) :: note
    if (allocated(note)) then
      call done(rc, ierr, what, note=note)
    else
      call done(rc, ierr, what, fp=f%p)
    end if
  end subroutine done_f

  ! Write C text, line by line, to a unit, then free it.
  subroutine put_text(text, n, unit)
    type(c_ptr), intent(in) :: text
    integer(c_int64_t), intent(in) :: n
    integer, intent(in) :: unit
    character(kind=c_char), pointer :: chars(:)
    integer(int64) :: i, first
    if (.not. c_associated(text)) return
    call c_f_pointer(text, chars, [n])
    first = 1
    do i = 1, n
      if (chars(i) == c_new_line) then
        call put_line(chars(first:i - 1), unit)
        first = i + 1
      end if
    end do
    if (first <= n) call put_line(chars(first:n), unit)
    call c_free_text(text)
  end subroutine put_text

  subroutine put_line(chars, unit)
    character(kind=c_char), intent(in) :: chars(:)
    integer, intent(in) :: unit
    character(len=size(chars)) :: line
    integer :: i
    do i = 1, size(chars)
      line(i:i) = chars(i)
    end do
    write (unit, '(a)') line
  end subroutine put_line

  ! ---- version --------------------------------------------------------------

  !> Version of the library the program runs with; compare with the
  !> DARRAYIO_VERSION_* constants (the module's) to check that the module
  !> and the library agree. Needs no MPI: callable before MPI_Init and
  !> after MPI_Finalize.
  subroutine darray_get_version(major, minor, patch, ierr)
    integer, intent(out) :: major, minor, patch
    integer, intent(out), optional :: ierr
    integer(c_int) :: cmajor, cminor, cpatch, rc
    rc = c_get_version(cmajor, cminor, cpatch)
    major = int(cmajor)
    minor = int(cminor)
    patch = int(cpatch)
    call done(rc, ierr, 'darray_get_version')
  end subroutine darray_get_version

  !> Version of the library as 'MAJOR.MINOR.PATCH'. Needs no MPI.
  function darray_version_string() result(s)
    character(len=:), allocatable :: s
    s = c_str(c_version_string())
  end function darray_version_string

  ! ---- errors ---------------------------------------------------------------

  !> Text of a status code.
  function darray_strerror(code) result(s)
    integer, intent(in) :: code
    character(len=:), allocatable :: s
    s = c_str(c_strerror(int(code, c_int)))
  end function darray_strerror

  !> Name of a status code, such as 'DARRAY_EINVAL'.
  function darray_err_name(code) result(s)
    integer, intent(in) :: code
    character(len=:), allocatable :: s
    s = c_str(c_err_name(int(code, c_int)))
  end function darray_err_name

  !> Message of the last failure on an array handle; without a (or with a
  !> null handle) the last failure that had no handle to keep it.
  function darray_errmsg(a) result(s)
    type(darray_t), intent(in), optional :: a
    character(len=:), allocatable :: s
    if (present(a)) then
      s = c_str(c_errmsg(a%p))
    else
      s = c_str(c_errmsg(c_null_ptr))
    end if
  end function darray_errmsg

  !> Message of the last failure on a file handle (absent: as darray_errmsg).
  function darray_file_errmsg(f) result(s)
    type(darray_file_t), intent(in), optional :: f
    character(len=:), allocatable :: s
    if (present(f)) then
      s = c_str(c_file_errmsg(f%p))
    else
      s = c_str(c_file_errmsg(c_null_ptr))
    end if
  end function darray_file_errmsg

  ! ---- describing an array --------------------------------------------------

  ! An array just created (created: the creation's code) gets Fortran
  ! order as its default in memory and in the file; the outcome goes
  ! through done() under the name of the call.
  subroutine fortran_default(created, a, name, ierr)
    integer(c_int), intent(in) :: created
    type(darray_t), intent(inout) :: a
    character(*), intent(in) :: name
    integer, intent(out), optional :: ierr
    integer(c_int) :: rc, none(1)
    integer(c_int64_t) :: zeros(DARRAY_MAX_DIMS)
    if (created /= DARRAY_SUCCESS) then
      call done(created, ierr, name)
      return
    end if
    none = 0
    zeros = 0
    rc = c_set_storage_order(a%p, int(DARRAY_ORDER_FORTRAN, c_int), none)
    if (rc == DARRAY_SUCCESS) rc = c_set_memory_layout(a%p, &
      int(DARRAY_ORDER_FORTRAN, c_int), zeros, zeros)
    call done(rc, ierr, name, ap=a%p)
  end subroutine fortran_default

  ! Create, then make Fortran order the default in memory and in the file.
  subroutine create_common(comm, gsizes, type, a, ierr)
    integer, intent(in) :: comm
    integer(int64), intent(in) :: gsizes(:)
    integer, intent(in) :: type
    type(darray_t), intent(out) :: a
    integer, intent(out), optional :: ierr
    integer(c_int64_t) :: g(max(1, size(gsizes)))
    g = 0
    g(1:size(gsizes)) = gsizes
    call fortran_terms()
    call fortran_default(c_create(int(comm, c_int), int(size(gsizes), c_int), &
      g, int(type, c_int), a%p), a, 'darray_create', ierr)
  end subroutine create_common

  subroutine create_int(comm, gsizes, type, a, ierr)
    integer, intent(in) :: comm
    integer(int64), intent(in) :: gsizes(:)
    integer, intent(in) :: type
    type(darray_t), intent(out) :: a
    integer, intent(out), optional :: ierr
    call create_common(comm, gsizes, type, a, ierr)
  end subroutine create_int

#ifdef DARRAY_HAVE_MPI_F08
  subroutine create_f08(comm, gsizes, type, a, ierr)
    type(MPI_Comm), intent(in) :: comm
    integer(int64), intent(in) :: gsizes(:)
    integer, intent(in) :: type
    type(darray_t), intent(out) :: a
    integer, intent(out), optional :: ierr
    call create_common(comm%MPI_VAL, gsizes, type, a, ierr)
  end subroutine create_f08
#endif

  !> Release a handle (a becomes null; a null handle is left alone).
  subroutine darray_free(a, ierr)
    type(darray_t), intent(inout) :: a
    integer, intent(out), optional :: ierr
    call done(c_free(a%p), ierr, 'darray_free')
  end subroutine darray_free

  subroutine darray_set_elem_size(a, size, ierr)
    type(darray_t), intent(in) :: a
    integer(int64), intent(in) :: size
    integer, intent(out), optional :: ierr
    call done(c_set_elem_size(a%p, size), ierr, 'darray_set_elem_size', ap=a%p)
  end subroutine darray_set_elem_size

  !> dist(k), dargs(k): dimension k (dargs absent: defaults everywhere).
  subroutine darray_set_distribution(a, dist, dargs, ierr)
    type(darray_t), intent(in) :: a
    integer, intent(in) :: dist(:)
    integer(int64), intent(in), optional :: dargs(:)
    integer, intent(out), optional :: ierr
    integer(c_int) :: rc, nd
    integer(c_int64_t) :: k(max(1, size(dist)))
    character(len=:), allocatable :: note
    rc = DARRAY_SUCCESS
    nd = ndims_of(a)
    call check_len(rc, note, nd, 'dist', size(dist))
    k = DARRAY_DEFAULT_ARG
    if (present(dargs)) then
      call check_len(rc, note, nd, 'dargs', size(dargs))
      if (rc == DARRAY_SUCCESS) k(1:size(dargs)) = dargs
    end if
    call fortran_terms()
    if (rc == DARRAY_SUCCESS) &
      rc = c_set_distribution(a%p, int(dist, c_int), k)
    call done_a(rc, ierr, 'darray_set_distribution', a, note)
  end subroutine darray_set_distribution

  !> psizes(k): processes along dimension k (the grid is ranked with the
  !> last dimension fastest, as MPI_Type_create_darray's).
  subroutine darray_set_grid(a, psizes, ierr)
    type(darray_t), intent(in) :: a
    integer, intent(in) :: psizes(:)
    integer, intent(out), optional :: ierr
    integer(c_int) :: rc
    character(len=:), allocatable :: note
    rc = DARRAY_SUCCESS
    call check_len(rc, note, ndims_of(a), 'psizes', size(psizes))
    call fortran_terms()
    if (rc == DARRAY_SUCCESS) rc = c_set_grid(a%p, int(psizes, c_int))
    call done_a(rc, ierr, 'darray_set_grid', a, note)
  end subroutine darray_set_grid

  !> order: DARRAY_ORDER_FORTRAN (the default), DARRAY_ORDER_C, or
  !> DARRAY_ORDER_PERM with perm = dimension numbers 1..ndims from the
  !> slowest varying in the file to the fastest.
  subroutine darray_set_storage_order(a, order, perm, ierr)
    type(darray_t), intent(in) :: a
    integer, intent(in) :: order
    integer, intent(in), optional :: perm(:)
    integer, intent(out), optional :: ierr
    integer(c_int) :: rc
    integer(c_int) :: p(DARRAY_MAX_DIMS)
    character(len=:), allocatable :: note
    rc = DARRAY_SUCCESS
    p = -1
    if (present(perm)) then
      call check_len(rc, note, ndims_of(a), 'perm', size(perm))
      if (rc == DARRAY_SUCCESS) p(1:size(perm)) = perm - 1
    else if (order == DARRAY_ORDER_PERM) then
      rc = DARRAY_ENULL
      note = 'DARRAY_ORDER_PERM needs perm'
    end if
    call fortran_terms()
    if (rc == DARRAY_SUCCESS) &
      rc = c_set_storage_order(a%p, int(order, c_int), p)
    call done_a(rc, ierr, 'darray_set_storage_order', a, note)
  end subroutine darray_set_storage_order

  !> The byte offset of the array in the file (from 0).
  subroutine darray_set_displacement(a, disp, ierr)
    type(darray_t), intent(in) :: a
    integer(int64), intent(in) :: disp
    integer, intent(out), optional :: ierr
    call done(c_set_displacement(a%p, disp), ierr, 'darray_set_displacement', &
      ap=a%p)
  end subroutine darray_set_displacement

  !> The local piece in memory: order (default DARRAY_ORDER_FORTRAN), ghost
  !> widths and allocated extents per dimension (absent: none and tight).
  !> NAS BT's u(5,-2:IMAX+1,-2:JMAX+1,-2:KMAX+1,ncells) is ghost = [0,2,2,2],
  !> padded = [5, IMAX+4, JMAX+4, KMAX+4].
  subroutine darray_set_memory_layout(a, order, ghost, padded, ierr)
    type(darray_t), intent(in) :: a
    integer, intent(in), optional :: order
    integer(int64), intent(in), optional :: ghost(:), padded(:)
    integer, intent(out), optional :: ierr
    integer(c_int) :: rc, nd, o
    integer(c_int64_t) :: gh(DARRAY_MAX_DIMS), pd(DARRAY_MAX_DIMS)
    character(len=:), allocatable :: note
    rc = DARRAY_SUCCESS
    nd = ndims_of(a)
    gh = 0
    pd = 0
    o = DARRAY_ORDER_FORTRAN
    if (present(order)) o = int(order, c_int)
    if (present(ghost)) then
      call check_len(rc, note, nd, 'ghost', size(ghost))
      if (rc == DARRAY_SUCCESS) gh(1:size(ghost)) = ghost
    end if
    if (present(padded)) then
      call check_len(rc, note, nd, 'padded', size(padded))
      if (rc == DARRAY_SUCCESS) pd(1:size(padded)) = padded
    end if
    call fortran_terms()
    if (rc == DARRAY_SUCCESS) rc = c_set_memory_layout(a%p, o, gh, pd)
    call done_a(rc, ierr, 'darray_set_memory_layout', a, note)
  end subroutine darray_set_memory_layout

  subroutine darray_commit(a, ierr)
    type(darray_t), intent(in) :: a
    integer, intent(out), optional :: ierr
    call fortran_terms()
    call done(c_commit(a%p), ierr, 'darray_commit', ap=a%p)
  end subroutine darray_commit

  ! ---- queries (local, after commit) ---------------------------------------

  subroutine darray_global_shape(a, ndims, gsizes, ierr)
    type(darray_t), intent(in) :: a
    integer, intent(out), optional :: ndims
    integer(int64), intent(out), optional :: gsizes(:)
    integer, intent(out), optional :: ierr
    integer(c_int) :: rc, nd
    integer(c_int64_t) :: g(DARRAY_MAX_DIMS)
    character(len=:), allocatable :: note
    rc = c_global_shape(a%p, nd, g)
    if (present(gsizes)) then
      call check_len(rc, note, nd, 'gsizes', size(gsizes), .true.)
      if (rc == DARRAY_SUCCESS) gsizes(1:nd) = g(1:nd)
    end if
    if (present(ndims) .and. rc == DARRAY_SUCCESS) ndims = nd
    call done_a(rc, ierr, 'darray_global_shape', a, note)
  end subroutine darray_global_shape

  subroutine darray_elem_size(a, size, ierr)
    type(darray_t), intent(in) :: a
    integer(int64), intent(out) :: size
    integer, intent(out), optional :: ierr
    call done(c_elem_size(a%p, size), ierr, 'darray_elem_size', ap=a%p)
  end subroutine darray_elem_size

  subroutine darray_grid(a, psizes, ierr)
    type(darray_t), intent(in) :: a
    integer, intent(out) :: psizes(:)
    integer, intent(out), optional :: ierr
    integer(c_int) :: rc, nd, p(DARRAY_MAX_DIMS)
    character(len=:), allocatable :: note
    rc = DARRAY_SUCCESS
    nd = ndims_of(a)
    call check_len(rc, note, nd, 'psizes', size(psizes), .true.)
    if (rc == DARRAY_SUCCESS) rc = c_grid(a%p, p)
    if (rc == DARRAY_SUCCESS) psizes(1:nd) = p(1:nd)
    call done_a(rc, ierr, 'darray_grid', a, note)
  end subroutine darray_grid

  subroutine darray_num_cells(a, ncells, ierr)
    type(darray_t), intent(in) :: a
    integer, intent(out) :: ncells
    integer, intent(out), optional :: ierr
    integer(c_int) :: rc, n
    rc = c_num_cells(a%p, n)
    if (rc == DARRAY_SUCCESS) ncells = n
    call done(rc, ierr, 'darray_num_cells', ap=a%p)
  end subroutine darray_num_cells

  !> Interior shape of local cell number cell (1..ncells).
  subroutine darray_local_shape(a, cell, lshape, ierr)
    type(darray_t), intent(in) :: a
    integer, intent(in) :: cell
    integer(int64), intent(out) :: lshape(:)
    integer, intent(out), optional :: ierr
    integer(c_int) :: rc, nd
    integer(c_int64_t) :: s(DARRAY_MAX_DIMS)
    character(len=:), allocatable :: note
    rc = DARRAY_SUCCESS
    nd = ndims_of(a)
    call check_len(rc, note, nd, 'lshape', size(lshape), .true.)
    call fortran_terms()
    if (rc == DARRAY_SUCCESS) rc = c_local_shape(a%p, int(cell - 1, c_int), s)
    if (rc == DARRAY_SUCCESS) lshape(1:nd) = s(1:nd)
    call done_a(rc, ierr, 'darray_local_shape', a, note)
  end subroutine darray_local_shape

  !> Global index (1-based) of the first interior element of local cell
  !> number cell (1..ncells).
  subroutine darray_local_start(a, cell, start, ierr)
    type(darray_t), intent(in) :: a
    integer, intent(in) :: cell
    integer(int64), intent(out) :: start(:)
    integer, intent(out), optional :: ierr
    integer(c_int) :: rc, nd
    integer(c_int64_t) :: s(DARRAY_MAX_DIMS)
    character(len=:), allocatable :: note
    rc = DARRAY_SUCCESS
    nd = ndims_of(a)
    call check_len(rc, note, nd, 'start', size(start), .true.)
    call fortran_terms()
    if (rc == DARRAY_SUCCESS) rc = c_local_start(a%p, int(cell - 1, c_int), s)
    if (rc == DARRAY_SUCCESS) start(1:nd) = s(1:nd) + 1
    call done_a(rc, ierr, 'darray_local_start', a, note)
  end subroutine darray_local_start

  subroutine darray_local_count(a, count, ierr)
    type(darray_t), intent(in) :: a
    integer(int64), intent(out) :: count
    integer, intent(out), optional :: ierr
    call done(c_local_count(a%p, count), ierr, 'darray_local_count', ap=a%p)
  end subroutine darray_local_count

  !> Bytes of the local buffer, ghosts and padding included.
  subroutine darray_local_bytes(a, bytes, ierr)
    type(darray_t), intent(in) :: a
    integer(int64), intent(out) :: bytes
    integer, intent(out), optional :: ierr
    call done(c_local_bytes(a%p, bytes), ierr, 'darray_local_bytes', ap=a%p)
  end subroutine darray_local_bytes

  !> Owner of global element gidx (1-based): its rank (0-based), cell
  !> (1..ncells), 1-based interior index, and byte offset in the owner's
  !> local buffer.
  subroutine darray_locate(a, gidx, rank, cell, lidx, offset, ierr)
    type(darray_t), intent(in) :: a
    integer(int64), intent(in) :: gidx(:)
    integer, intent(out), optional :: rank, cell
    integer(int64), intent(out), optional :: lidx(:), offset
    integer, intent(out), optional :: ierr
    integer(c_int) :: rc, nd, r, c
    integer(c_int64_t) :: g(DARRAY_MAX_DIMS), l(DARRAY_MAX_DIMS), off
    character(len=:), allocatable :: note
    rc = DARRAY_SUCCESS
    nd = ndims_of(a)
    call check_len(rc, note, nd, 'gidx', size(gidx))
    if (present(lidx)) call check_len(rc, note, nd, 'lidx', size(lidx), .true.)
    if (rc == DARRAY_SUCCESS) then
      g(1:nd) = gidx - 1
      call fortran_terms()
      rc = c_locate(a%p, g, r, c, l, off)
    end if
    if (rc == DARRAY_SUCCESS) then
      if (present(rank)) rank = r
      if (present(cell)) cell = c + 1
      if (present(lidx)) lidx(1:nd) = l(1:nd) + 1
      if (present(offset)) offset = off
    end if
    call done_a(rc, ierr, 'darray_locate', a, note)
  end subroutine darray_locate

  !> Global index (1-based) of interior element lidx (1-based) of cell
  !> number cell (1..ncells) on rank (0-based).
  subroutine darray_global_index(a, rank, cell, lidx, gidx, ierr)
    type(darray_t), intent(in) :: a
    integer, intent(in) :: rank, cell
    integer(int64), intent(in) :: lidx(:)
    integer(int64), intent(out) :: gidx(:)
    integer, intent(out), optional :: ierr
    integer(c_int) :: rc, nd
    integer(c_int64_t) :: l(DARRAY_MAX_DIMS), g(DARRAY_MAX_DIMS)
    character(len=:), allocatable :: note
    rc = DARRAY_SUCCESS
    nd = ndims_of(a)
    call check_len(rc, note, nd, 'lidx', size(lidx))
    call check_len(rc, note, nd, 'gidx', size(gidx), .true.)
    if (rc == DARRAY_SUCCESS) then
      l(1:nd) = lidx - 1
      call fortran_terms()
      rc = c_global_index(a%p, int(rank, c_int), int(cell - 1, c_int), l, g)
    end if
    if (rc == DARRAY_SUCCESS) gidx(1:nd) = g(1:nd) + 1
    call done_a(rc, ierr, 'darray_global_index', a, note)
  end subroutine darray_global_index

  !> Byte offset in the file (from 0, displacement included) of global
  !> element gidx (1-based).
  subroutine darray_file_offset(a, gidx, offset, ierr)
    type(darray_t), intent(in) :: a
    integer(int64), intent(in) :: gidx(:)
    integer(int64), intent(out) :: offset
    integer, intent(out), optional :: ierr
    integer(c_int) :: rc, nd
    integer(c_int64_t) :: g(DARRAY_MAX_DIMS)
    character(len=:), allocatable :: note
    rc = DARRAY_SUCCESS
    nd = ndims_of(a)
    call check_len(rc, note, nd, 'gidx', size(gidx))
    if (rc == DARRAY_SUCCESS) then
      g(1:nd) = gidx - 1
      call fortran_terms()
      rc = c_file_offset(a%p, g, offset)
    end if
    call done_a(rc, ierr, 'darray_file_offset', a, note)
  end subroutine darray_file_offset

  ! ---- files and I/O ---------------------------------------------------------

  ! A file (dataset = .false.) or a dataset: the one C call behind both, a
  ! Fortran integer info handle given or not.
  subroutine open_common(dataset, comm, path, mode, f, info, has_info, ierr)
    logical, intent(in) :: dataset, has_info
    integer, intent(in) :: comm, mode, info
    character(*), intent(in) :: path
    type(darray_file_t), intent(out) :: f
    integer, intent(out), optional :: ierr
    integer(c_int) :: hi, rc
    hi = 0
    if (has_info) hi = 1
    if (dataset) then
      rc = c_dataset_open(int(comm, c_int), to_c(path), int(mode, c_int), &
        int(info, c_int), hi, f%p)
      call done(rc, ierr, 'darray_dataset_open')
    else
      rc = c_file_open(int(comm, c_int), to_c(path), int(mode, c_int), &
        int(info, c_int), hi, f%p)
      call done(rc, ierr, 'darray_file_open')
    end if
  end subroutine open_common

  ! The `mpi' module's handles (info optional).
  subroutine open_int(dataset, comm, path, mode, f, info, ierr)
    logical, intent(in) :: dataset
    integer, intent(in) :: comm
    character(*), intent(in) :: path
    integer, intent(in) :: mode
    type(darray_file_t), intent(out) :: f
    integer, intent(in), optional :: info
    integer, intent(out), optional :: ierr
    if (present(info)) then
      call open_common(dataset, comm, path, mode, f, info, .true., ierr)
    else
      call open_common(dataset, comm, path, mode, f, 0, .false., ierr)
    end if
  end subroutine open_int

  subroutine file_open_int(comm, path, mode, f, info, ierr)
    integer, intent(in) :: comm
    character(*), intent(in) :: path
    integer, intent(in) :: mode
    type(darray_file_t), intent(out) :: f
    integer, intent(in), optional :: info
    integer, intent(out), optional :: ierr
    call open_int(.false., comm, path, mode, f, info, ierr)
  end subroutine file_open_int

#ifdef DARRAY_HAVE_MPI_F08
  ! mpi_f08's handles (info optional).
  subroutine open_f08(dataset, comm, path, mode, f, info, ierr)
    logical, intent(in) :: dataset
    type(MPI_Comm), intent(in) :: comm
    character(*), intent(in) :: path
    integer, intent(in) :: mode
    type(darray_file_t), intent(out) :: f
    type(MPI_Info), intent(in), optional :: info
    integer, intent(out), optional :: ierr
    if (present(info)) then
      call open_common(dataset, comm%MPI_VAL, path, mode, f, info%MPI_VAL, &
        .true., ierr)
    else
      call open_common(dataset, comm%MPI_VAL, path, mode, f, 0, .false., ierr)
    end if
  end subroutine open_f08

  subroutine file_open_f08(comm, path, mode, f, info, ierr)
    type(MPI_Comm), intent(in) :: comm
    character(*), intent(in) :: path
    integer, intent(in) :: mode
    type(darray_file_t), intent(out) :: f
    type(MPI_Info), intent(in), optional :: info
    integer, intent(out), optional :: ierr
    call open_f08(.false., comm, path, mode, f, info, ierr)
  end subroutine file_open_f08
#endif

  !> Close a file (collective). A file still open at MPI_Finalize is
  !> closed there by the library (pending requests completed, a dataset's
  !> headers written); a close after MPI_Finalize then releases the handle
  !> and returns that close's result (include/darrayio.h).
  subroutine darray_file_close(f, ierr)
    type(darray_file_t), intent(inout) :: f
    integer, intent(out), optional :: ierr
    call done(c_file_close(f%p), ierr, 'darray_file_close', fp=c_null_ptr)
  end subroutine darray_file_close

  subroutine darray_file_sync(f, ierr)
    type(darray_file_t), intent(in) :: f
    integer, intent(out), optional :: ierr
    call done(c_file_sync(f%p), ierr, 'darray_file_sync', fp=f%p)
  end subroutine darray_file_sync

  !> darray_file_delete(path [, info] [, ierr]): delete a file, a striped
  !> subfile set with all its subfiles (local: call it on one process);
  !> info is the mpi module's integer handle (mpi_f08: pass info%MPI_VAL),
  !> accepted and ignored as in C.
  subroutine darray_file_delete(path, info, ierr)
    character(*), intent(in) :: path
    integer, intent(in), optional :: info
    integer, intent(out), optional :: ierr
    integer(c_int) :: finfo, has
    call info_arg(info, finfo, has)
    call done(c_file_delete(to_c(path), finfo, has), ierr, &
      'darray_file_delete')
  end subroutine darray_file_delete

  ! ---- reads and writes ------------------------------------------------------
  !
  ! Every read and write call passes buf to the shim (darray_f_xfer) as
  ! the actual argument's descriptor (assumed type, assumed rank): the
  ! library checks its size in bytes against what the call moves (the
  ! local piece with ghosts and padding, darray_local_bytes; a section's
  ! prod(count) elements) and refuses a short one with DARRAY_EBUFSIZE on
  ! every process, before any byte moves, the message naming both sizes.
  ! An assumed-size actual argument (a dummy u(*) of the caller's) has no
  ! size Fortran knows: it is passed unchecked.
  !
  ! A non-contiguous actual argument (u(1:n:2, :), u(i, :), a pointer to a
  ! strided section) is copied by the shim into a contiguous buffer of its
  ! size, written from it or read into it and copied back (the elements of
  ! the copy that a read does not fill, ghosts say, come back unchanged).
  ! The pending calls (darray_iwrite, darray_iread and their _section
  ! forms) use buf after they return, so their buf must be the program's
  ! array itself: a non-contiguous one is refused with DARRAY_EINVAL
  ! (darray_bwrite copies at post and takes any array). Assumed-rank
  ! dummies are never copy-in/copy-out temporaries: the descriptor is the
  ! actual argument's own.
  !
  ! What the module finds wrong (start or count of the wrong length) is
  ! passed to the call as its refusal, so that the call fails on every
  ! process alike instead of leaving the others waiting in it.

  ! One read or write call: how as above; start and count present for a
  ! section (1-based start); req present for a posted one.
  subroutine xfer(f, a, how, buf, what, ierr, start, count, order, req)
    type(darray_file_t), intent(in) :: f
    type(darray_t), intent(in) :: a
    integer(c_int), intent(in) :: how
    type(*), dimension(..), target, asynchronous :: buf
    character(*), intent(in) :: what
    integer, intent(out), optional :: ierr
    integer(int64), intent(in), optional :: start(:), count(:)
    integer, intent(in), optional :: order
    integer(int64), intent(out), optional :: req
    integer(c_int64_t) :: s(DARRAY_MAX_DIMS), c(DARRAY_MAX_DIMS), r
    integer(c_int) :: rc, refuse
    character(len=:), allocatable :: note
    s = 0
    c = 0
    refuse = DARRAY_SUCCESS
    if (present(start)) &
      call section_args(a, start, count, s, c, refuse, note)
    if (.not. allocated(note)) note = ''
    r = DARRAY_REQUEST_NULL
    rc = c_f_xfer(f%p, a%p, how, s, c, order_of(order), buf, refuse, &
      to_c(note), r)
    if (present(req)) req = r
    call done(rc, ierr, what, fp=f%p)
  end subroutine xfer

  !> Write every process's local piece: buf is the local array as declared
  !> (any type and rank; ghosts and padding as set by
  !> darray_set_memory_layout), at least darray_local_bytes bytes (else
  !> DARRAY_EBUFSIZE on every process, nothing written).
  subroutine darray_write(f, a, buf, ierr)
    type(darray_file_t), intent(in) :: f
    type(darray_t), intent(in) :: a
    type(*), dimension(..), intent(in), target :: buf
    integer, intent(out), optional :: ierr
    call xfer(f, a, XF_WRITE, buf, 'darray_write', ierr)
  end subroutine darray_write

  !> Read every process's local piece into buf (ghosts left alone); buf as
  !> for darray_write.
  subroutine darray_read(f, a, buf, ierr)
    type(darray_file_t), intent(in) :: f
    type(darray_t), intent(in) :: a
    type(*), dimension(..), intent(inout), target :: buf
    integer, intent(out), optional :: ierr
    call xfer(f, a, 0_c_int, buf, 'darray_read', ierr)
  end subroutine darray_read

  ! start (1-based) and count of a section as the C call takes them; rc
  ! becomes DARRAY_EINVAL with a note when one has the wrong length.
  subroutine section_args(a, start, count, s, c, rc, note)
    type(darray_t), intent(in) :: a
    integer(int64), intent(in) :: start(:), count(:)
    integer(c_int64_t), intent(out) :: s(DARRAY_MAX_DIMS), c(DARRAY_MAX_DIMS)
    integer(c_int), intent(out) :: rc
    character(len=:), allocatable, intent(inout) :: note
    integer(c_int) :: nd
    rc = DARRAY_SUCCESS
    nd = ndims_of(a)
    call check_len(rc, note, nd, 'start', size(start))
    call check_len(rc, note, nd, 'count', size(count))
    s = 0
    c = 0
    if (rc /= DARRAY_SUCCESS) return
    ! the C call refuses a start below 1 (0-based: below 0); -huge - 1
    ! would wrap
    s(1:nd) = max(start, -huge(start)) - 1
    c(1:nd) = count
  end subroutine section_args

  !> Write the box start(k) .. start(k)+count(k)-1 (1-based global indices)
  !> held densely in buf, in order (default DARRAY_ORDER_FORTRAN: buf can be
  !> a Fortran array shaped count), of at least prod(count) elements.
  subroutine darray_write_section(f, a, start, count, buf, order, ierr)
    type(darray_file_t), intent(in) :: f
    type(darray_t), intent(in) :: a
    integer(int64), intent(in) :: start(:), count(:)
    type(*), dimension(..), intent(in), target :: buf
    integer, intent(in), optional :: order
    integer, intent(out), optional :: ierr
    call xfer(f, a, XF_WRITE + XF_SECTION, buf, 'darray_write_section', &
      ierr, start, count, order)
  end subroutine darray_write_section

  !> Read the box start(k) .. start(k)+count(k)-1 (1-based) into buf.
  subroutine darray_read_section(f, a, start, count, buf, order, ierr)
    type(darray_file_t), intent(in) :: f
    type(darray_t), intent(in) :: a
    integer(int64), intent(in) :: start(:), count(:)
    type(*), dimension(..), intent(inout), target :: buf
    integer, intent(in), optional :: order
    integer, intent(out), optional :: ierr
    call xfer(f, a, XF_SECTION, buf, 'darray_read_section', ierr, start, &
      count, order)
  end subroutine darray_read_section

  ! ---- nonblocking reads and writes -----------------------------------------
  !
  ! include/darrayio.h ("Nonblocking reads and writes") is the manual: posting
  ! is collective, a request completes with darray_wait, darray_test or
  ! darray_wait_all, and its result is the blocking call's. A pending
  ! darray_iwrite, darray_iread or their _section forms uses buf after the
  ! post returns, until the request completes: buf must be the program's
  ! array itself, contiguous (see "reads and writes" above), and ASYNCHRONOUS
  ! where the program uses it while the request is pending. The buffered
  ! writes copy the data before they return: any array.

  ! The memory order of a section buffer (default: Fortran order).
  integer(c_int) function order_of(order) result(o)
    integer, intent(in), optional :: order
    o = DARRAY_ORDER_FORTRAN
    if (present(order)) o = int(order, c_int)
  end function order_of

  !> Post a write of every process's local piece (collective, nonblocking):
  !> darray_write as a request. buf must be contiguous (else
  !> DARRAY_EINVAL on every process, nothing posted), should be declared
  !> asynchronous, and must stay unchanged until req completes.
  subroutine darray_iwrite(f, a, buf, req, ierr)
    type(darray_file_t), intent(in) :: f
    type(darray_t), intent(in) :: a
    type(*), dimension(..), intent(in), target, asynchronous :: buf
    integer(int64), intent(out) :: req
    integer, intent(out), optional :: ierr
    call xfer(f, a, XF_WRITE + XF_POST, buf, 'darray_iwrite', ierr, &
      req=req)
  end subroutine darray_iwrite

  !> Post a read of every process's local piece (collective, nonblocking):
  !> darray_read as a request. buf as for darray_iwrite; it must not be used
  !> until req completes.
  subroutine darray_iread(f, a, buf, req, ierr)
    type(darray_file_t), intent(in) :: f
    type(darray_t), intent(in) :: a
    type(*), dimension(..), intent(inout), target, asynchronous :: buf
    integer(int64), intent(out) :: req
    integer, intent(out), optional :: ierr
    call xfer(f, a, XF_POST, buf, 'darray_iread', ierr, req=req)
  end subroutine darray_iread

  !> Post a write of the box start(k) .. start(k)+count(k)-1 (1-based):
  !> darray_write_section as a request (order default DARRAY_ORDER_FORTRAN).
  !> buf as for darray_iwrite.
  subroutine darray_iwrite_section(f, a, start, count, buf, req, order, ierr)
    type(darray_file_t), intent(in) :: f
    type(darray_t), intent(in) :: a
    integer(int64), intent(in) :: start(:), count(:)
    type(*), dimension(..), intent(in), target, asynchronous :: buf
    integer(int64), intent(out) :: req
    integer, intent(in), optional :: order
    integer, intent(out), optional :: ierr
    call xfer(f, a, XF_WRITE + XF_SECTION + XF_POST, buf, &
      'darray_iwrite_section', ierr, start, count, order, req)
  end subroutine darray_iwrite_section

  !> Post a read of the box start(k) .. start(k)+count(k)-1 (1-based) into
  !> buf: darray_read_section as a request. buf as for darray_iread.
  subroutine darray_iread_section(f, a, start, count, buf, req, order, ierr)
    type(darray_file_t), intent(in) :: f
    type(darray_t), intent(in) :: a
    integer(int64), intent(in) :: start(:), count(:)
    type(*), dimension(..), intent(inout), target, asynchronous :: buf
    integer(int64), intent(out) :: req
    integer, intent(in), optional :: order
    integer, intent(out), optional :: ierr
    call xfer(f, a, XF_SECTION + XF_POST, buf, 'darray_iread_section', &
      ierr, start, count, order, req)
  end subroutine darray_iread_section

  !> Post a buffered write of every process's local piece: as darray_iwrite,
  !> but the data is copied before the call returns, so buf (any array, as
  !> for darray_write) may be changed at once. The copies of a file's
  !> pending requests are bounded by the hint darray_nb_buffer_size.
  subroutine darray_bwrite(f, a, buf, req, ierr)
    type(darray_file_t), intent(in) :: f
    type(darray_t), intent(in) :: a
    type(*), dimension(..), intent(in), target :: buf
    integer(int64), intent(out) :: req
    integer, intent(out), optional :: ierr
    call xfer(f, a, XF_WRITE + XF_POST + XF_BUFFERED, buf, 'darray_bwrite', &
      ierr, req=req)
  end subroutine darray_bwrite

  !> Post a buffered write of the box start .. start+count-1 (1-based): as
  !> darray_iwrite_section, the data copied as darray_bwrite copies it.
  subroutine darray_bwrite_section(f, a, start, count, buf, req, order, ierr)
    type(darray_file_t), intent(in) :: f
    type(darray_t), intent(in) :: a
    integer(int64), intent(in) :: start(:), count(:)
    type(*), dimension(..), intent(in), target :: buf
    integer(int64), intent(out) :: req
    integer, intent(in), optional :: order
    integer, intent(out), optional :: ierr
    call xfer(f, a, XF_WRITE + XF_SECTION + XF_POST + XF_BUFFERED, buf, &
      'darray_bwrite_section', ierr, start, count, order, req)
  end subroutine darray_bwrite_section

  !> Post a flush of the file to stable storage: darray_file_sync as a
  !> request, after the requests this process posted before it on f.
  subroutine darray_file_isync(f, req, ierr)
    type(darray_file_t), intent(in) :: f
    integer(int64), intent(out) :: req
    integer, intent(out), optional :: ierr
    req = DARRAY_REQUEST_NULL
    call done(c_file_isync(f%p, req), ierr, 'darray_file_isync', fp=f%p)
  end subroutine darray_file_isync

  !> Complete a request: wait until it has finished; its result (the same on
  !> every process) is ierr, or the stop. req becomes DARRAY_REQUEST_NULL;
  !> waiting on DARRAY_REQUEST_NULL succeeds at once, on a request that
  !> completed already is DARRAY_EREQUEST.
  subroutine darray_wait(f, req, ierr)
    type(darray_file_t), intent(in) :: f
    integer(int64), intent(inout) :: req
    integer, intent(out), optional :: ierr
    call done(c_wait(f%p, req), ierr, 'darray_wait', fp=f%p)
  end subroutine darray_wait

  !> Whether a request has completed, without blocking: flag = .true. when
  !> it has (then req is DARRAY_REQUEST_NULL and ierr its result, as
  !> darray_wait's), else .false. and DARRAY_SUCCESS.
  subroutine darray_test(f, req, flag, ierr)
    type(darray_file_t), intent(in) :: f
    integer(int64), intent(inout) :: req
    logical, intent(out) :: flag
    integer, intent(out), optional :: ierr
    integer(c_int) :: rc, fl
    fl = 0
    rc = c_test(f%p, req, fl)
    flag = fl /= 0
    call done(rc, ierr, 'darray_test', fp=f%p)
  end subroutine darray_test

  !> Complete every request of reqs (DARRAY_REQUEST_NULL entries are
  !> skipped), each set to DARRAY_REQUEST_NULL; codes(i) (at least
  !> size(reqs) entries) receives request i's result; ierr is the first
  !> failure, or DARRAY_SUCCESS.
  subroutine darray_wait_all(f, reqs, codes, ierr)
    type(darray_file_t), intent(in) :: f
    integer(int64), intent(inout) :: reqs(:)
    integer, intent(out), optional :: codes(:)
    integer, intent(out), optional :: ierr
    integer(c_int) :: rc, c(max(1, size(reqs)))
    character(len=:), allocatable :: note
    character(len=24) :: got, want
    integer :: n
    n = size(reqs)
    rc = DARRAY_SUCCESS
    if (present(codes)) then
      if (size(codes) < n) then
        write (got, '(i0)') size(codes)
        write (want, '(i0)') n
        rc = DARRAY_EINVAL
        note = 'codes has ' // trim(got) // ' entries, reqs has ' // trim(want)
      end if
    end if
    if (rc == DARRAY_SUCCESS) rc = c_wait_all(f%p, int(n, c_int), reqs, c)
    if (present(codes) .and. .not. allocated(note)) codes(1:n) = int(c(1:n))
    call done_f(rc, ierr, 'darray_wait_all', f, note)
  end subroutine darray_wait_all

  !> How a whole-array write (write = .true.) or read would move its bytes,
  !> printed to unit (default: output_unit).
  subroutine darray_explain(f, a, write, unit, ierr)
    type(darray_file_t), intent(in) :: f
    type(darray_t), intent(in) :: a
    logical, intent(in) :: write
    integer, intent(in), optional :: unit
    integer, intent(out), optional :: ierr
    type(c_ptr) :: text
    integer(c_int64_t) :: n
    integer(c_int) :: rc, w
    integer :: u
    w = 0
    if (write) w = 1
    u = output_unit
    if (present(unit)) u = unit
    rc = c_explain(f%p, a%p, w, text, n)
    call put_text(text, n, u)
    call done(rc, ierr, 'darray_explain', fp=f%p)
  end subroutine darray_explain

  subroutine darray_file_get_stats(f, stats, ierr)
    type(darray_file_t), intent(in) :: f
    type(darray_stats_t), intent(out) :: stats
    integer, intent(out), optional :: ierr
    type(c_stats_t) :: cs
    integer(c_int) :: rc
    integer :: i
    rc = c_file_get_stats(f%p, cs)
    if (rc == DARRAY_SUCCESS) then
      stats%bytes_read = cs%v(1)
      stats%bytes_written = cs%v(2)
      stats%read_calls = cs%v(3)
      stats%write_calls = cs%v(4)
      stats%bytes_exchanged = cs%v(5)
      stats%cycles = cs%v(6)
      stats%peak_temp_bytes = cs%v(7)
      stats%calls = cs%v(8)
      stats%io_ns = cs%v(9)
      stats%exchange_ns = cs%v(10)
      stats%call_ns = cs%v(11)
      stats%collectives = cs%w(1)
      stats%bytes_copied = cs%w(2)
      stats%messages = cs%w(3)
      stats%strategy = ''
      do i = 1, 16
        if (cs%strategy(i) == c_null_char) exit
        stats%strategy(i:i) = cs%strategy(i)
      end do
    end if
    call done(rc, ierr, 'darray_file_get_stats', fp=f%p)
  end subroutine darray_file_get_stats

  subroutine darray_file_reset_stats(f, ierr)
    type(darray_file_t), intent(in) :: f
    integer, intent(out), optional :: ierr
    call done(c_file_reset_stats(f%p), ierr, 'darray_file_reset_stats', &
      fp=f%p)
  end subroutine darray_file_reset_stats

  !> Sums and maxima of the file's I/O counters over its processes
  !> (collective; the same summary and ierr on every process).
  subroutine darray_file_stats_summary(f, s, ierr)
    type(darray_file_t), intent(in) :: f
    type(darray_stats_summary_t), intent(inout) :: s
    integer, intent(out), optional :: ierr
    call done(c_file_stats_summary(f%p, s), ierr, &
      'darray_file_stats_summary', fp=f%p)
  end subroutine darray_file_stats_summary

  !> The value of a hint on an open file, blank-padded into value
  !> (DARRAY_EINVAL when value is too short for it).
  subroutine darray_file_get_hint(f, key, value, ierr)
    type(darray_file_t), intent(in) :: f
    character(*), intent(in) :: key
    character(*), intent(out) :: value
    integer, intent(out), optional :: ierr
    character(kind=c_char) :: v(len(value) + 1)
    integer(c_int) :: rc
    integer :: i
    value = ''
    rc = c_file_get_hint(f%p, to_c(key), v, int(len(value) + 1, c_int))
    if (rc == DARRAY_SUCCESS) then
      do i = 1, len(value)
        if (v(i) == c_null_char) exit
        value(i:i) = v(i)
      end do
    end if
    call done(rc, ierr, 'darray_file_get_hint', fp=f%p)
  end subroutine darray_file_get_hint

  subroutine file_get_info_int(f, info, ierr)
    type(darray_file_t), intent(in) :: f
    integer, intent(out) :: info
    integer, intent(out), optional :: ierr
    integer(c_int) :: h, rc
    rc = c_file_get_info(f%p, h)
    info = int(h)
    call done(rc, ierr, 'darray_file_get_info', fp=f%p)
  end subroutine file_get_info_int

#ifdef DARRAY_HAVE_MPI_F08
  subroutine file_get_info_f08(f, info, ierr)
    type(darray_file_t), intent(in) :: f
    type(MPI_Info), intent(out) :: info
    integer, intent(out), optional :: ierr
    call file_get_info_int(f, info%MPI_VAL, ierr)
  end subroutine file_get_info_f08
#endif

  ! ---- datasets (.npy, .npz) -------------------------------------------------

  subroutine dataset_open_int(comm, path, mode, f, info, ierr)
    integer, intent(in) :: comm
    character(*), intent(in) :: path
    integer, intent(in) :: mode
    type(darray_file_t), intent(out) :: f
    integer, intent(in), optional :: info
    integer, intent(out), optional :: ierr
    call open_int(.true., comm, path, mode, f, info, ierr)
  end subroutine dataset_open_int

#ifdef DARRAY_HAVE_MPI_F08
  subroutine dataset_open_f08(comm, path, mode, f, info, ierr)
    type(MPI_Comm), intent(in) :: comm
    character(*), intent(in) :: path
    integer, intent(in) :: mode
    type(darray_file_t), intent(out) :: f
    type(MPI_Info), intent(in), optional :: info
    integer, intent(out), optional :: ierr
    call open_f08(.true., comm, path, mode, f, info, ierr)
  end subroutine dataset_open_f08
#endif

  !> Bind a to the member name of a dataset (trailing blanks ignored; a
  !> .npy file ignores the name: pass '').
  subroutine darray_define(f, name, a, ierr)
    type(darray_file_t), intent(in) :: f
    character(*), intent(in) :: name
    type(darray_t), intent(in) :: a
    integer, intent(out), optional :: ierr
    call fortran_terms()
    call done(c_define(f%p, to_c(name), a%p), ierr, 'darray_define', fp=f%p)
  end subroutine darray_define

  subroutine darray_num_members(f, n, ierr)
    type(darray_file_t), intent(in) :: f
    integer, intent(out) :: n
    integer, intent(out), optional :: ierr
    integer(c_int) :: cn, rc
    n = 0
    rc = c_num_members(f%p, cn)
    if (rc == DARRAY_SUCCESS) n = int(cn)
    call done(rc, ierr, 'darray_num_members', fp=f%p)
  end subroutine darray_num_members

  !> Member index (1 .. darray_num_members, in file order) of a dataset.
  subroutine darray_inquire(f, index, info, ierr)
    type(darray_file_t), intent(in) :: f
    integer, intent(in) :: index
    type(darray_member_info_t), intent(out) :: info
    integer, intent(out), optional :: ierr
    type(c_member_info_t) :: ci
    integer(c_int) :: rc
    integer :: i, nd
    call fortran_terms()
    rc = c_inquire(f%p, int(index - 1, c_int), ci)
    if (rc == DARRAY_SUCCESS) then
      do i = 1, DARRAY_NAME_MAX
        if (ci%name(i) == c_null_char) exit
        info%name(i:i) = ci%name(i)
      end do
      nd = int(ci%ndims)
      info%type = int(ci%type)
      info%elem_size = ci%elem_size
      info%ndims = nd
      info%gsizes(1:nd) = ci%gsizes(1:nd)
      info%order = int(ci%order)
      info%perm(1:nd) = int(ci%perm(1:nd)) + 1
      info%offset = ci%offset
      info%bytes = ci%bytes
      info%has_crc = ci%has_crc /= 0
      ! uint32 in C: the bits of a default integer, read as unsigned.
      info%crc32 = iand(int(ci%crc32, int64), int(z'FFFFFFFF', int64))
      info%status = int(ci%status)
      info%scalar = ci%scalar /= 0
      do i = 1, 31
        if (ci%descr(i) == c_null_char) exit
        info%descr(i:i) = ci%descr(i)
      end do
    end if
    call done(rc, ierr, 'darray_inquire', fp=f%p)
  end subroutine darray_inquire

  !> Check the CRC-32 of every member of a dataset opened for reading.
  subroutine darray_verify(f, ierr)
    type(darray_file_t), intent(in) :: f
    integer, intent(out), optional :: ierr
    call done(c_verify(f%p), ierr, 'darray_verify', fp=f%p)
  end subroutine darray_verify

  ! ---- storage advisor ----------------------------------------------------------

  ! The consumers as C structs; names(:, i) holds consumer i's name.
  subroutine to_c_consumers(consumers, cc, names)
    type(darray_consumer_t), intent(in) :: consumers(:)
    type(c_consumer_t), intent(out) :: cc(:)
    character(kind=c_char), intent(inout), target :: names(:, :)
    integer :: i, j, n
    do i = 1, size(consumers)
      n = len_trim(consumers(i)%name)
      do j = 1, n
        names(j, i) = consumers(i)%name(j:j)
      end do
      names(n + 1, i) = c_null_char
      cc(i)%name = c_loc(names(1, i))
      cc(i)%weight = consumers(i)%weight
      cc(i)%nprocs = int(consumers(i)%nprocs, c_int)
      cc(i)%dist = int(consumers(i)%dist, c_int)
      cc(i)%dargs = consumers(i)%dargs
      cc(i)%psizes = int(consumers(i)%psizes, c_int)
    end do
  end subroutine to_c_consumers

  subroutine from_c_advice(ca, advice)
    type(c_advice_t), intent(in) :: ca
    type(darray_advice_t), intent(out) :: advice
    advice%perm = ca%perm + 1
    advice%conforming_weight = ca%conforming_weight
    advice%collective_weight = ca%collective_weight
    advice%total_weight = ca%total_weight
    advice%weighted_runs = ca%weighted_runs
    advice%ncandidates = ca%ncandidates
    advice%all_orders = ca%all_orders /= 0
  end subroutine from_c_advice

  !> Recommend the storage order of a dataset (gsizes, esize bytes per
  !> element) from its consumers; verdicts(i) is consumer i's verdict under
  !> it (at least size(consumers) entries).
  subroutine darray_advise_storage(gsizes, esize, consumers, advice, &
      verdicts, ierr)
    integer(int64), intent(in) :: gsizes(:), esize
    type(darray_consumer_t), intent(in) :: consumers(:)
    type(darray_advice_t), intent(out) :: advice
    type(darray_consumer_verdict_t), intent(out), optional :: verdicts(:)
    integer, intent(out), optional :: ierr
    type(c_consumer_t) :: cc(max(1, size(consumers)))
    character(kind=c_char), target :: names(65, max(1, size(consumers)))
    type(darray_consumer_verdict_t) :: v(max(1, size(consumers)))
    type(c_advice_t) :: ca
    integer(c_int) :: rc
    character(len=:), allocatable :: note
    rc = DARRAY_SUCCESS
    if (present(verdicts)) call check_len(rc, note, &
      int(size(consumers), c_int), 'verdicts', size(verdicts), .true.)
    if (rc == DARRAY_SUCCESS) then
      call to_c_consumers(consumers, cc, names)
      call fortran_terms()
      rc = c_advise_storage(int(size(gsizes), c_int), gsizes, esize, &
        int(size(consumers), c_int), cc, ca, v)
    end if
    if (rc == DARRAY_SUCCESS) then
      call from_c_advice(ca, advice)
      if (present(verdicts)) verdicts(1:size(consumers)) = v(1:size(consumers))
    end if
    call done_a(rc, ierr, 'darray_advise_storage', darray_t(), note)
  end subroutine darray_advise_storage

  !> Evaluate one storage order, perm = dimensions 1..ndims slowest first.
  subroutine darray_advise_order(gsizes, esize, consumers, perm, advice, &
      verdicts, ierr)
    integer(int64), intent(in) :: gsizes(:), esize
    type(darray_consumer_t), intent(in) :: consumers(:)
    integer, intent(in) :: perm(:)
    type(darray_advice_t), intent(out) :: advice
    type(darray_consumer_verdict_t), intent(out), optional :: verdicts(:)
    integer, intent(out), optional :: ierr
    type(c_consumer_t) :: cc(max(1, size(consumers)))
    character(kind=c_char), target :: names(65, max(1, size(consumers)))
    type(darray_consumer_verdict_t) :: v(max(1, size(consumers)))
    type(c_advice_t) :: ca
    integer(c_int) :: rc, p(DARRAY_MAX_DIMS)
    character(len=:), allocatable :: note
    rc = DARRAY_SUCCESS
    call check_len(rc, note, int(size(gsizes), c_int), 'perm', size(perm))
    if (present(verdicts)) call check_len(rc, note, &
      int(size(consumers), c_int), 'verdicts', size(verdicts), .true.)
    if (rc == DARRAY_SUCCESS) then
      p = -1
      p(1:size(perm)) = int(perm - 1, c_int)
      call to_c_consumers(consumers, cc, names)
      call fortran_terms()
      rc = c_advise_order(int(size(gsizes), c_int), gsizes, esize, &
        int(size(consumers), c_int), cc, p, ca, v)
    end if
    if (rc == DARRAY_SUCCESS) then
      call from_c_advice(ca, advice)
      if (present(verdicts)) verdicts(1:size(consumers)) = v(1:size(consumers))
    end if
    call done_a(rc, ierr, 'darray_advise_order', darray_t(), note)
  end subroutine darray_advise_order

  ! ---- planning on paper ----------------------------------------------------

  !> darray_create_virtual(nprocs, gsizes, type, a [, ierr]): a virtual
  !> array of nprocs processes, Fortran order in memory and in the file.
  subroutine darray_create_virtual(nprocs, gsizes, type, a, ierr)
    integer, intent(in) :: nprocs
    integer(int64), intent(in) :: gsizes(:)
    integer, intent(in) :: type
    type(darray_t), intent(out) :: a
    integer, intent(out), optional :: ierr
    integer(c_int64_t) :: g(max(1, size(gsizes)))
    g = 0
    g(1:size(gsizes)) = gsizes
    call fortran_terms()
    call fortran_default(c_create_virtual(int(nprocs, c_int), &
      int(size(gsizes), c_int), g, int(type, c_int), a%p), a, &
      'darray_create_virtual', ierr)
  end subroutine darray_create_virtual

  ! C characters up to the terminating null, as a Fortran string.
  function c_chars(c) result(s)
    character(kind=c_char), intent(in) :: c(:)
    character(len=size(c)) :: s
    integer :: i
    s = ''
    do i = 1, size(c)
      if (c(i) == c_null_char) exit
      s(i:i) = c(i)
    end do
  end function c_chars

  function from_c_row(c) result(r)
    type(c_plan_row_t), intent(in) :: c
    type(darray_plan_row_t) :: r
    r%strategy = c_chars(c%strategy)
    r%candidate = c%candidate /= 0
    r%chosen = c%chosen /= 0
    r%why = c_chars(c%why)
    r%estimate_ns = c%estimate_ns
    r%file_calls_max = c%counters(1)
    r%file_calls_sum = c%counters(2)
    r%file_bytes_max = c%counters(3)
    r%sent_bytes_max = c%counters(4)
    r%sent_bytes_sum = c%counters(5)
    r%messages_max = c%counters(6)
    r%messages_sum = c%counters(7)
    r%cycles = c%counters(8)
    r%aggregators = c%counters(9)
    r%agg_pieces_max = c%counters(10)
    r%temp_bytes_max = c%counters(11)
    r%metadata_bytes_max = c%counters(12)
    r%romio_metadata_max = c%counters(13)
    r%romio_metadata_sum = c%counters(14)
    r%servers_per_agg_max = c%servers_per_agg_max
    r%aggs_per_server_max = c%aggs_per_server_max
    r%plan_ns = c%plan_ns
  end function from_c_row

  !> darray_plan_virtual(a, write, rows, nfilled [, info] [, ierr]): plan
  !> a whole-array call of a virtual array on paper; info is the mpi
  !> module's integer handle (mpi_f08: pass info%MPI_VAL).
  subroutine darray_plan_virtual(a, write, rows, nfilled, info, ierr)
    type(darray_t), intent(in) :: a
    logical, intent(in) :: write
    type(darray_plan_row_t), intent(out) :: rows(:)
    integer, intent(out) :: nfilled
    integer, intent(in), optional :: info
    integer, intent(out), optional :: ierr
    type(c_plan_row_t) :: c(max(1, size(rows)))
    integer(c_int) :: rc, n, finfo, has, w
    integer :: i
    call info_arg(info, finfo, has)
    w = 0
    if (write) w = 1
    rc = c_plan_virtual(a%p, finfo, has, w, int(size(rows), c_int), c, n)
    nfilled = 0
    if (rc == DARRAY_SUCCESS) then
      nfilled = int(n)
      do i = 1, nfilled
        rows(i) = from_c_row(c(i))
      end do
    end if
    call done(rc, ierr, 'darray_plan_virtual', ap=a%p)
  end subroutine darray_plan_virtual

  !> Print the advisor's reasoning to unit (default: output_unit).
  subroutine darray_advise_report(gsizes, esize, consumers, unit, ierr)
    integer(int64), intent(in) :: gsizes(:), esize
    type(darray_consumer_t), intent(in) :: consumers(:)
    integer, intent(in), optional :: unit
    integer, intent(out), optional :: ierr
    type(c_consumer_t) :: cc(max(1, size(consumers)))
    character(kind=c_char), target :: names(65, max(1, size(consumers)))
    type(c_ptr) :: text
    integer(c_int64_t) :: n
    integer(c_int) :: rc
    integer :: u
    u = output_unit
    if (present(unit)) u = unit
    call to_c_consumers(consumers, cc, names)
    call fortran_terms()
    rc = c_advise_report(int(size(gsizes), c_int), gsizes, esize, &
      int(size(consumers), c_int), cc, text, n)
    call put_text(text, n, u)
    call done(rc, ierr, 'darray_advise_report')
  end subroutine darray_advise_report

end module darrayio
