#!/bin/sh
# md-label.sh - Doxygen's input filter for the Markdown pages of `make doc`
# (doc/Doxyfile.in, FILTER_PATTERNS): it names each page after its path by
# appending Doxygen's `{#label}` to the page's first heading.
#
#   sh doc/md-label.sh TOP_SRCDIR FILE   ->  FILE on stdout, labelled
#
# Written into the files, `{#label}` would show on GitHub in every title;
# added here, the sources stay plain Markdown and the site still gets
# stable names, for \ref in the header and in generated pages:
#   doc/porting.md -> porting     (every guide of doc/: its base name)
#   README.md -> readme           bench/README.md -> bench
#   bench/RESULTS.md -> bench_results
# The main page (doc/mainpage.md) and a page whose first heading already
# has a label (the generated doc/errors.md) pass through unchanged. Only
# the heading's line changes, so Doxygen's line numbers stay right.

# Doxygen names the file by its real path; configure's abs_top_srcdir may
# not be one (../src from a build directory beside the sources).
top=$(cd "$1" && pwd -P) || exit 1
file=$2
dir=$(cd "$(dirname "$file")" && pwd -P) || exit 1
rel=$dir/$(basename "$file" .md)
rel=${rel#"$top"/}
case $rel in
  doc/mainpage) exec cat "$file" ;;
  doc/*) label=${rel#doc/} ;;
  README) label=readme ;;
  */README) label=${rel%/README} ;;
  /*) label=$(basename "$rel") ;;
  *) label=$rel ;;
esac
label=$(printf '%s' "$label" | tr 'A-Z/.-' 'a-z___')
awk -v label="$label" '
  !done && /^# / {
    if ($0 !~ /\{#[A-Za-z0-9_]+\} *$/)
      $0 = $0 " {#" label "}"
    done = 1
  }
  { print }' "$file"
