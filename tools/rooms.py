#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the darrayio authors (AUTHORS)
#
# rooms.py - the calls between the rooms of src/, from the built objects.
#
#   tools/rooms.py [BUILDDIR]      (default: the current directory)
#
# A room is a folder of src/ (its first component: src/io/, src/format/ ...);
# the files directly in src/ form the room "core". Room A calls room B when
# an object of A has an undefined symbol that an object of B defines (nm:
# static functions are not external, so same-name statics never count).
# doc/rooms.md gives the layering this checks: a room calls only rooms
# below it, so the graph of calls between rooms has no circle.
#
# Prints each room's edges (with how many symbols make each), then every
# circle (a strongly connected set of rooms) with the symbols of each edge
# inside it, "file: symbol (defining file)", so a reader sees which calls
# to move or to turn into a hook. Exit status: 0 no circle, 1 a circle,
# 2 no objects found or nm failed.
#
# The objects are those the build's Makefile lists for the library (so
# objects a moved source left behind do not count), or every .o under
# src/ when it lists none.
#
# Standard library only (runs with any Python 3).

import collections
import os
import re
import subprocess
import sys

DEFINED = set('TDBRGSVWi')


def listed(build):
    """The library's objects as the build's Makefile lists them (.lo
    names), so that objects left by a source moved away do not count;
    None when there is no such list."""
    try:
        with open(os.path.join(build, 'Makefile')) as f:
            text = f.read().replace('\\\n', ' ')
    except OSError:
        return None
    m = re.search(r'^am_src_libdarrayio_core_la_OBJECTS\s*=(.*)$', text,
                  re.M)
    if m is None:
        return None
    return {os.path.normpath(os.path.join(build, w[:-3] + '.o'))
            for w in m.group(1).split() if w.endswith('.lo')}


def objects(build, src):
    """The library's objects under SRC, one per source: the non-PIC .o
    beside the source when libtool made one, else the PIC one in .libs/."""
    wanted = listed(build)
    found = {}
    for top, dirs, files in os.walk(src):
        dirs.sort()
        pic = os.path.basename(top) == '.libs'
        base = os.path.dirname(top) if pic else top
        for name in sorted(files):
            if not name.endswith('.o'):
                continue
            key = os.path.normpath(os.path.join(base, name))
            if wanted is not None and key not in wanted:
                continue
            if key not in found or not pic:
                found[key] = os.path.join(top, name)
    return [found[k] for k in sorted(found)]


def room_of(src, path):
    rel = os.path.relpath(path, src).split(os.sep)
    rel = [p for p in rel if p != '.libs']
    return rel[0] if len(rel) > 1 else 'core'


def file_of(path):
    name = os.path.basename(path)[:-2]
    return re.sub(r'^[A-Za-z0-9_]+_la-', '', name)


def symbols(nm, path):
    out = subprocess.run(nm + [path], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, universal_newlines=True)
    if out.returncode != 0:
        raise OSError('%s %s: %s' % (' '.join(nm), path, out.stderr.strip()))
    defined, undefined = set(), set()
    for line in out.stdout.splitlines():
        p = line.split()
        if len(p) == 3 and p[1] in DEFINED:
            defined.add(p[2])
        elif len(p) == 2 and p[0] == 'U':
            undefined.add(p[1])
    return defined, undefined


def circles(nodes, edges):
    """Strongly connected sets of more than one room (Tarjan, iterative)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = 0
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, ()))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges.get(w, ())))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def main(argv):
    build = argv[1] if len(argv) > 1 else '.'
    src = os.path.join(build, 'src')
    nm = os.environ.get('NM', 'nm').split() or ['nm']
    objs = objects(build, src)
    if not objs:
        print('rooms.py: no objects under %s (run make first)' % src,
              file=sys.stderr)
        return 2
    where = {}   # symbol -> (room, file)
    needs = {}   # (room, file) -> undefined symbols
    try:
        for o in objs:
            key = (room_of(src, o), file_of(o))
            defined, undefined = symbols(nm, o)
            for s in defined:
                where[s] = key
            needs[key] = undefined
    except OSError as e:
        print('rooms.py: %s' % e, file=sys.stderr)
        return 2
    # calls[a][b] = [(file, symbol, defining file)]
    calls = collections.defaultdict(lambda: collections.defaultdict(list))
    for (room, name), undefined in needs.items():
        for s in undefined:
            if s in where and where[s][0] != room:
                calls[room][where[s][0]].append((name, s, where[s][1]))
    rooms = sorted({r for r, _ in needs})
    print('rooms: %d, objects: %d' % (len(rooms), len(objs)))
    for a in rooms:
        targets = calls.get(a, {})
        text = ', '.join('%s (%d)' % (b, len(targets[b]))
                         for b in sorted(targets))
        print('%-10s -> %s' % (a, text or '(none)'))
    edges = {a: set(calls[a]) for a in calls}
    found = circles(rooms, edges)
    for comp in found:
        print()
        print('CIRCLE: %s' % ' <-> '.join(comp))
        for a in comp:
            for b in comp:
                if b in calls.get(a, {}):
                    print('  %s -> %s:' % (a, b))
                    for name, s, dfile in sorted(calls[a][b]):
                        print('    %s: %s (%s)' % (name, s, dfile))
    if found:
        print('\n%d circle(s) between rooms' % len(found))
        return 1
    print('no circle between rooms')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
