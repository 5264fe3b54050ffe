#!/bin/sh
# ooc_f_small.sh - examples/ooc_f (the out-of-core heat sweep from Fortran,
# section by section through module darrayio) must write the same bytes as
# examples/ooc_heat (C), whose --verify compares its final file with an
# in-core run: both run the grid of ooc_heat_small.sh (128 x 128, 3
# iterations, an 8 KiB budget: slabs of 3 rows, 8 to 16 times out of core)
# at each process count, and both files of each (the last step and the one
# before) are compared with cmp. ooc_f runs with --verify too, and both
# programs answer --help with exit status 0.
#
# Process counts: 1 2 3 (DARRAY_TEST_NP overrides them). Exit status: 0, 1
# on failure, 77 (skip) when there is no MPI launcher or ooc_f was not
# built (configure found no Fortran compiler).

top=${DARRAY_TOP_BUILDDIR:-$(pwd)}
wrapper=${DARRAY_TEST_WRAPPER:-${srcdir:-.}/test/mpirun.sh}
case $wrapper in /*) ;; *) wrapper="$(pwd)/$wrapper" ;; esac
if [ ! -x "$top/examples/ooc_f" ]; then
  echo "== ooc_f: not built (no Fortran compiler): skipped"
  exit 77
fi
tmp=${DARRAY_TEST_TMPDIR:-$top/test/tmp}/ooc_f
mkdir -p "$tmp" || exit 99

# run NP PROGRAM [ARGS...]: one program on the grid at NP processes.
run() {
  np=$1 prog=$2
  shift 2
  DARRAY_TEST_NP=$np /bin/sh "$wrapper" "$top/examples/$prog" -n 128 \
    --iters 3 --budget 8k --dir "$tmp" --keep "$@"
}

status=0
for prog in ooc_heat ooc_f; do
  for h in -h --help; do
    out=$(DARRAY_TEST_NP=1 /bin/sh "$wrapper" "$top/examples/$prog" $h)
    rh=$?
    [ $rh -eq 77 ] && exit 77
    if [ $rh -ne 0 ] || ! printf '%s\n' "$out" | grep -q "^usage: .*$prog"
    then
      echo "== ooc_f: $prog $h: exit status $rh, output:"
      printf '%s\n' "$out"
      status=1
    fi
  done
done
for np in ${DARRAY_TEST_NP:-1 2 3}; do
  rm -f "$tmp"/ooc_heat.*.dat "$tmp"/ooc_f.*.dat
  run "$np" ooc_heat --verify
  rc=$?
  run "$np" ooc_f --verify
  rf=$?
  if [ $rc -ne 0 ] || [ $rf -ne 0 ]; then
    echo "== ooc_f: NP=$np: a run failed (C $rc, Fortran $rf)"
    status=1
    continue
  fi
  for k in 0 1; do
    if cmp "$tmp/ooc_heat.$k.dat" "$tmp/ooc_f.$k.dat"; then
      echo "== ooc_f: NP=$np: file $k is byte-identical to ooc_heat's"
    else
      echo "== ooc_f: NP=$np: file $k differs from ooc_heat's"
      status=1
    fi
  done
done
rm -rf "$tmp"
exit $status
