#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the darrayio authors (AUTHORS)
#
# quickstart.sh - build darrayio from a fresh checkout and run it.
#
#   tools/quickstart.sh demo   build, then run examples/dist3d on 2 processes
#   tools/quickstart.sh test   build with -Werror, run `make check`, and end
#                              with one line "N passed, N failed[, N skipped]"
#
# The reliability suites (doc/reliability.md) end with the same kind of
# line; .ci/run runs them all after `test`:
#   tools/quickstart.sh long      `make check-long` (4 GiB arrays) in the
#                                 build of `test`, building it if needed
#   tools/quickstart.sh valgrind  `make check-valgrind` there: the C tests
#                                 under valgrind memcheck at 1 and 2 processes
#   tools/quickstart.sh sanitize  a second build with --enable-sanitizers
#                                 (ASan + UBSan) in _build-san (SAN_BUILD_DIR
#                                 overrides it), and its `make check`
#   tools/quickstart.sh fuzz      fuzz/run.sh: each of the five fuzz
#                                 targets for FUZZ_SECONDS seconds
#                                 (default 20: ~2.5 min with the build)
#   tools/quickstart.sh openmpi   install Open MPI if missing, build with
#                                 its wrappers (mpicc.openmpi,
#                                 mpifort.openmpi) in _build-openmpi
#                                 (OMPI_BUILD_DIR overrides it) and run
#                                 `make check` there under mpiexec.openmpi
#   tools/quickstart.sh installcheck  a build in _build-install
#                                 (INSTALL_BUILD_DIR overrides it) with
#                                 --prefix=_build-install/prefix, `make
#                                 install` there, then `make installcheck`:
#                                 the installed tools, man pages, guides
#                                 and site (--enable-doxygen), and a CMake
#                                 and a pkg-config project built and run
#                                 against the prefix and against a copy of
#                                 it elsewhere (test/install)
#
# All install missing Debian packages first (apt-get, through sudo when not
# root), then run autoreconf -fi and configure in the out-of-tree build
# directory _build (BUILD_DIR overrides it). JOBS sets make's -j (default 2).
# Extra arguments after the subcommand are passed to configure.

set -u
set -o pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-$here/_build}
jobs=${JOBS:-2}
packages=(mpich libmpich-dev zlib1g-dev autoconf automake libtool doxygen
          pkg-config make gcc gfortran python3-numpy unzip cmake)

say() { printf '==> %s\n' "$*"; }
die() { printf 'quickstart: %s\n' "$*" >&2; exit 1; }

usage() {
  cat <<'EOF'
usage: tools/quickstart.sh demo|test|long|valgrind|sanitize|fuzz|openmpi|dist|installcheck [configure options...]
  demo      install what is missing, build, run examples/dist3d on 2 processes
  test      install what is missing, build with --enable-werror, run make check
  long      make check-long (4 GiB arrays) in the build of `test`
  valgrind  make check-valgrind (memcheck, 1 and 2 processes) in that build
  sanitize  build with --enable-sanitizers in _build-san and run make check
  fuzz      build the fuzz targets and run each for FUZZ_SECONDS (20) seconds
  openmpi   install Open MPI if missing, build with its wrappers in
            _build-openmpi and run make check there
  dist      make distcheck in the build of `test` (the tarball builds and
            passes make check on its own, each test at one process
            count: DARRAY_TEST_NP_ONE in test/mpirun.sh), and check that the tarball
            holds every file the README and the header cite
  installcheck  build with --prefix=_build-install/prefix, make install,
            then make installcheck: the installed tools, man pages, guides
            and site, and a CMake and a pkg-config project built and run
            against it and against a copy of it moved elsewhere
EOF
}

# Install the Debian packages that are not installed yet: the base list,
# plus the ones given as arguments.
ensure_packages() {
  if ! command -v dpkg-query >/dev/null 2>&1; then
    say "not a Debian system: make sure MPI, zlib and the autotools are installed"
    return 0
  fi
  local missing=() p
  for p in "${packages[@]}" "$@"; do
    [ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" = \
      "install ok installed" ] || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  say "installing ${missing[*]}"
  local sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null 2>&1 ||
      die "not root and no sudo: install ${missing[*]} first"
    sudo=(sudo)
  fi
  if ! "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q ||
     ! "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
       apt-get install -y -q --no-install-recommends "${missing[@]}"; then
    die "apt-get install failed"
  fi
}

# autoreconf, configure in $build, make.
build_tree() {
  if [ -f "$here/config.status" ]; then
    die "$here is configured in place; run 'make distclean' there first"
  fi
  say "autoreconf -fi"
  (cd "$here" && autoreconf -fi) || die "autoreconf failed"
  mkdir -p "$build" || die "cannot create $build"
  say "configure $*"
  (cd "$build" && "$here/configure" "$@") || die "configure failed (see $build/config.log)"
  say "make -j$jobs"
  make -C "$build" -j"$jobs" || die "make failed"
}

# The launcher configure chose for the build in $build (it matches the
# compiler wrapper; the generic mpiexec may belong to another MPI).
launcher() {
  local m
  m=$(sed -n 's/^MPIEXEC = //p' "$build/Makefile" 2>/dev/null)
  echo "${m:-mpiexec}"
}

cmd_demo() {
  ensure_packages
  build_tree "$@"
  local mpiexec
  mpiexec=$(launcher)
  say "$mpiexec -n 2 examples/dist3d -n 128"
  (cd "$build" && "$mpiexec" -n 2 ./examples/dist3d -n 128)
}

# One number from the summary at the top of a test-suite log (default
# $build/test-suite.log).
count() {
  local n
  n=$(sed -n "s/^# $1: *\([0-9][0-9]*\)\$/\1/p" "${2:-$build/test-suite.log}" | head -n 1)
  echo "${n:-0}"
}

# The closing line "N passed, N failed[, N skipped]" of a suite whose log
# is $1 (it holds the logs of the tests that failed: shown then) and whose
# make exited with $2; succeeds when nothing failed.
summarize() {
  local log=$1 rc=$2 pass fail skip
  if [ ! -f "$log" ]; then
    echo "$(basename "$log") was not produced"
    echo "0 passed, 1 failed"
    return 1
  fi
  pass=$(count PASS "$log")
  fail=$(( $(count FAIL "$log") + $(count ERROR "$log") + $(count XPASS "$log") ))
  skip=$(count SKIP "$log")
  [ "$fail" -gt 0 ] && cat "$log"
  if [ "$rc" -ne 0 ] && [ "$fail" -eq 0 ]; then
    echo "make exited with status $rc"
    fail=1
  fi
  [ "$pass" -gt 0 ] || echo "no test passed"
  local line="$pass passed, $fail failed"
  [ "$skip" -gt 0 ] && line="$line, $skip skipped"
  echo "$line"
  [ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
}

# The build of `test` with its test programs, made if it is not there.
ensure_build() {
  if [ ! -f "$build/Makefile" ]; then
    (ensure_packages && build_tree --enable-werror --enable-fault-injection "$@") || return 1
  fi
  make -C "$build" -j"$jobs" check TESTS= >/dev/null
}

# make check-long or check-valgrind in the build of `test`.
cmd_suite() {
  local target=$1 log=$2
  shift 2
  if ! ensure_build "$@"; then
    echo "set-up or build failed; no tests were run"
    echo "0 passed, 1 failed"
    return 1
  fi
  rm -f "$build/$log"
  say "make $target"
  make -C "$build" "$target"
  summarize "$build/$log" $?
}

cmd_long() { cmd_suite check-long test-suite-long.log "$@"; }

cmd_valgrind() {
  if ! (ensure_packages valgrind); then
    echo "0 passed, 1 failed"
    return 1
  fi
  cmd_suite check-valgrind test-suite-valgrind.log "$@"
}

cmd_sanitize() {
  build=${SAN_BUILD_DIR:-$here/_build-san}
  if ! (ensure_packages && build_tree --enable-werror --enable-fault-injection --enable-sanitizers "$@") ||
     ! make -C "$build" -j"$jobs" check TESTS= >/dev/null; then
    echo "set-up or sanitizer build failed; no tests were run"
    echo "0 passed, 1 failed"
    return 1
  fi
  rm -f "$build/test-suite.log"
  say "make check (AddressSanitizer + UndefinedBehaviorSanitizer)"
  make -C "$build" check
  summarize "$build/test-suite.log" $?
}

cmd_fuzz() {
  if ! (ensure_packages clang libclang-rt-dev); then
    say "clang or libFuzzer could not be installed: fuzz/run.sh falls back"
  fi
  mkdir -p "$build" || return 1
  bash "$here/fuzz/run.sh" -t "${FUZZ_SECONDS:-20}" -o "$build/fuzz-out"
}

# Open MPI beside MPICH: its own build directory, its wrappers named
# explicitly (Debian's generic mpicc/mpifort/mpiexec point at whichever MPI
# was installed last), its launcher given to the tests through TESTMPIRUN.
# Open MPI refuses to run as root and to start more processes than cores
# unless told: the flags below, and the variables test/mpirun.sh sets.
cmd_openmpi() {
  build=${OMPI_BUILD_DIR:-$here/_build-openmpi}
  local ompi_mpiexec=mpiexec.openmpi
  # Debian's mpifort.openmpi links -lmpi without Open MPI's library
  # directory, so it finds the generic libmpi.so, which the alternatives
  # may point at MPICH: name the directory.
  if ! (ensure_packages libopenmpi-dev openmpi-bin python3-mpi4py python3-numpy) ||
     ! (build_tree --enable-werror --enable-fault-injection CC=mpicc.openmpi FC=mpifort.openmpi \
          LDFLAGS="-L$(mpicc.openmpi --showme:libdirs)" \
          MPIEXEC="$(command -v $ompi_mpiexec)" "$@") ||
     ! make -C "$build" -j"$jobs" check TESTS= >/dev/null; then
    echo "set-up or Open MPI build failed; no tests were run"
    echo "0 passed, 1 failed"
    return 1
  fi
  local flags="--oversubscribe"
  [ "$(id -u)" -eq 0 ] && flags="$flags --allow-run-as-root"
  rm -f "$build/test-suite.log"
  say "make check with Open MPI ($ompi_mpiexec $flags -n NP)"
  make -C "$build" check TESTMPIRUN="$ompi_mpiexec $flags -n NP"
  summarize "$build/test-suite.log" $?
}

# The files the README and the public header cite by path, that exist in
# the tree (a path in prose is one of the project's rooms followed by a
# file name).
cited_files() {
  grep -ohE '(doc|examples|tools|bench|fuzz|test|include|src|fortran)/[A-Za-z0-9_./-]*[A-Za-z0-9_]' \
    "$here/README.md" "$here/include/darrayio.h" | sort -u |
    while read -r p; do [ -f "$here/$p" ] && echo "$p"; done
}

cmd_dist() {
  if ! ensure_build "$@"; then
    echo "set-up or build failed; no tests were run"
    echo "0 passed, 1 failed"
    return 1
  fi
  local pass=0 fail=0 cc mpiexec
  cc=$(sed -n 's/^CC = //p' "$build/Makefile")
  mpiexec=$(sed -n 's/^MPIEXEC = //p' "$build/Makefile")
  say "make distcheck (CC=$cc)"
  # The tarball's own build runs every test once, at one process count of
  # its list (test/mpirun.sh): the suite `test` ran every count already.
  if DARRAY_TEST_NP_ONE=1 make -C "$build" distcheck \
       DISTCHECK_CONFIGURE_FLAGS="--enable-werror --enable-fault-injection CC=$cc MPIEXEC=$mpiexec"; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    # A failed distcheck leaves its tree: show the failed tests' logs, as
    # the other suites do (the summary alone does not say why).
    local sublog
    for sublog in "$build"/darrayio-*/_build/sub/test-suite.log; do
      [ -f "$sublog" ] && cat "$sublog"
    done
  fi
  local tarball missing=0
  tarball=$(ls -t "$build"/darrayio-*.tar.gz 2>/dev/null | head -n 1)
  if [ -n "$tarball" ]; then
    local listing
    listing=$(tar tzf "$tarball" | sed 's#^[^/]*/##')
    for p in $(cited_files); do
      if ! printf '%s\n' "$listing" | grep -qxF "$p"; then
        echo "not in $(basename "$tarball"): $p (cited by the README or the header)"
        missing=$((missing + 1))
      fi
    done
  else
    echo "no tarball in $build"
    missing=1
  fi
  if [ "$missing" -eq 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
  echo "$pass passed, $fail failed"
  [ "$fail" -eq 0 ]
}

# An installation as a user makes one: its own build, configured with a
# prefix inside it (the pkg-config and CMake files name the prefix), then
# `make installcheck` (test/install/check.sh), which ends with the line
# "N passed, N failed[, N skipped]"; a missing cmake is a failure here.
cmd_installcheck() {
  build=${INSTALL_BUILD_DIR:-$here/_build-install}
  local prefix=$build/prefix
  if ! (ensure_packages &&
        build_tree --enable-werror --enable-doxygen --prefix="$prefix" "$@"); then
    echo "set-up or build failed; nothing was installed"
    echo "0 passed, 1 failed"
    return 1
  fi
  rm -rf "$prefix"
  say "make install (prefix $prefix)"
  if ! make -C "$build" install >"$build/install.log" 2>&1; then
    cat "$build/install.log"
    echo "make install failed"
    echo "0 passed, 1 failed"
    return 1
  fi
  say "make installcheck"
  DARRAY_REQUIRE_CMAKE=1 make -C "$build" installcheck
}

cmd_test() {
  # A failed set-up or build counts as one failure, so the last line and the
  # exit status still say that the tests did not pass. Doxygen is one of
  # the packages: test/doc.sh checks that `make doc` has no warning.
  if ! (ensure_packages && build_tree --enable-werror --enable-fault-injection --enable-doxygen "$@"); then
    echo "set-up or build failed; no tests were run"
    echo "0 passed, 1 failed"
    return 1
  fi
  say "make check (test programs built with -j$jobs, MPI runs one at a time)"
  if ! make -C "$build" -j"$jobs" check TESTS=; then
    echo "building the tests failed; no tests were run"
    echo "0 passed, 1 failed"
    return 1
  fi
  rm -f "$build/test-suite.log"
  make -C "$build" check
  local rc=$?
  if [ ! -f "$build/test-suite.log" ]; then
    echo "make check did not produce test-suite.log"
    echo "0 passed, 1 failed"
    return 1
  fi

  local pass fail skip
  pass=$(count PASS)
  fail=$(( $(count FAIL) + $(count ERROR) + $(count XPASS) ))
  skip=$(count SKIP)

  # Show why each failed test failed.
  local trs
  while IFS= read -r trs; do
    if grep -Eq '^:test-result: (FAIL|ERROR|XPASS)' "$trs"; then
      printf '\n===== %s =====\n' "${trs%.trs}.log"
      cat "${trs%.trs}.log"
    fi
  done < <(find "$build" -name '*.trs' | sort)

  if [ "$rc" -ne 0 ] && [ "$fail" -eq 0 ]; then
    echo "make check exited with status $rc"
    fail=1
  fi
  [ "$pass" -gt 0 ] || echo "no test passed"

  local line="$pass passed, $fail failed"
  [ "$skip" -gt 0 ] && line="$line, $skip skipped"
  echo "$line"
  [ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
}

case ${1:-} in
  demo) shift; cmd_demo "$@" ;;
  test) shift; cmd_test "$@" ;;
  long) shift; cmd_long "$@" ;;
  valgrind) shift; cmd_valgrind "$@" ;;
  sanitize) shift; cmd_sanitize "$@" ;;
  fuzz) shift; cmd_fuzz "$@" ;;
  openmpi) shift; cmd_openmpi "$@" ;;
  dist) shift; cmd_dist "$@" ;;
  installcheck) shift; cmd_installcheck "$@" ;;
  -h | --help | help) usage ;;
  *) usage >&2; exit 2 ;;
esac
