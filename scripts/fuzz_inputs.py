#!/usr/bin/env python3
"""Mutated inputs through gpublur's decoders and parsers, for a build with sanitizers.

Usage: fuzz_inputs.py GPUBLUR_BINARY [--seed S] [--images N] [--texts N] [--dir D]

Images: byte-flipped, truncated, header-edited and spliced copies of testdata's PNG and EXR files through
`gpublur blur -b cpu` with both I/O adapters (oiio and lean). Texts: mutated kernel files (`--method kernel`) and
report JSONs (`report merge`). Every run must exit 0, 1 or 2 (success, a failed image, a usage error) with no
sanitizer report and within a minute; anything else is kept under DIR/found with its command line and stderr.
Build with sanitizers first, e.g. scripts/build.sh /work/build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo
-DGPUBLUR_CUDA=OFF "-DCMAKE_CXX_FLAGS=-fsanitize=address,undefined -fno-omit-frame-pointer"
"-DCMAKE_EXE_LINKER_FLAGS=-fsanitize=address,undefined" (docs/performance.md, fortieth session).
"""
import argparse
import glob
import json
import os
import random
import shutil
import subprocess

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ap = argparse.ArgumentParser()
ap.add_argument('binary')
ap.add_argument('--seed', type=int, default=1)
ap.add_argument('--images', type=int, default=400)
ap.add_argument('--texts', type=int, default=150)
ap.add_argument('--dir', default='/tmp/gpublur-fuzz')
a = ap.parse_args()
rng = random.Random(a.seed)
env = dict(os.environ, ASAN_OPTIONS='detect_leaks=0:exitcode=99',
           UBSAN_OPTIONS='print_stacktrace=1:halt_on_error=1:exitcode=98')
work, found = os.path.join(a.dir, 'work'), os.path.join(a.dir, 'found')
os.makedirs(found, exist_ok=True)
stats = {}


def run(kind, cmd, data, ext):
    try:
        r = subprocess.run(cmd, env=env, capture_output=True, timeout=60)
        rc, err = r.returncode, r.stderr.decode(errors='replace')
    except subprocess.TimeoutExpired:
        rc, err = 'timeout', ''
    stats[(kind, rc)] = stats.get((kind, rc), 0) + 1
    if rc not in (0, 1, 2) or 'runtime error' in err or 'Sanitizer' in err:
        name = os.path.join(found, '%s_%d_%d_%s' % (kind, a.seed, sum(stats.values()), rc))
        open(name + ext, 'wb').write(data)
        open(name + '.txt', 'w').write(' '.join(cmd) + '\n' + err)


def mutate(data):
    data = bytearray(data)
    kind = rng.choice(['flip', 'flipmany', 'trunc', 'header', 'splice'])
    if kind == 'flip':
        for _ in range(rng.randint(1, 4)):
            data[rng.randrange(len(data))] = rng.randrange(256)
    elif kind == 'flipmany':
        for _ in range(rng.randint(5, 60)):
            data[rng.randrange(len(data))] = rng.randrange(256)
    elif kind == 'trunc':
        data = data[:rng.randrange(1, len(data))]
    elif kind == 'header':
        for _ in range(rng.randint(1, 6)):
            data[rng.randrange(min(len(data), 400))] = rng.randrange(256)
    else:
        at, frm = rng.randrange(len(data)), rng.randrange(len(data))
        data[at:at] = data[frm:frm + rng.randint(1, 200)]
    return bytes(data)


images = sorted(glob.glob(os.path.join(root, 'testdata', '*.png')) + glob.glob(os.path.join(root, 'testdata', '*.exr')))
for _ in range(a.images):
    src = rng.choice(images)
    ext = os.path.splitext(src)[1]
    data = mutate(open(src, 'rb').read())
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    inp = os.path.join(work, 'in' + ext)
    open(inp, 'wb').write(data)
    run('image', [a.binary, 'blur', inp, '-o', os.path.join(work, 'out'), '-b', 'cpu', '-q', '--io',
                  rng.choice(['oiio', 'lean']), '--method', rng.choice(['box', 'gauss-sep', 'copy'])], data, ext)

kernel = open(os.path.join(root, 'testdata', 'kernels', 'gauss_sigma2.txt')).read()
tokens = ['nan', 'inf', '-inf', '1e309', '-0', '0x1p3', '1e-320', '', ' ', ',', ';', '#', '\r', '1', '-1', '0',
          '99999999999999999999', '3.', '.5', 'e5', '+', '1,2', '[', ']']
os.makedirs(work, exist_ok=True)
for _ in range(a.texts):
    if rng.random() < 0.67:
        rows = [line.split(' ') for line in kernel.split('\n') if line and not line.startswith('#')]
        if rng.random() < 0.3:
            h, w = rng.choice([0, 1, 2, 3, 7, 64, 1001]), rng.choice([0, 1, 2, 3, 7, 64, 1001])
            rows = [[rng.choice(['1', '0', '-1', '0.5', 'nan', '1e30', 'inf']) for _ in range(w)] for _ in range(h)]
        else:
            for _ in range(rng.randint(1, 8)):
                r = rng.randrange(len(rows))
                if rng.random() < 0.25 and len(rows) > 1:
                    rows.pop(r)
                elif rows[r]:
                    rows[r][rng.randrange(len(rows[r]))] = rng.choice(tokens)
        data = '\n'.join(' '.join(r) for r in rows).encode()
        path = os.path.join(work, 'k.txt')
        open(path, 'wb').write(data)
        run('kernel', [a.binary, 'blur', os.path.join(root, 'testdata', 'icon_palette.png'), '-o',
                       os.path.join(work, 'kout'), '-b', 'cpu', '-q', '--overwrite', '--method', 'kernel', '--kernel',
                       path] + rng.choice([[], ['--normalize'], ['--impl', '2d']]), data, '.txt')
    else:
        rep = {'images': [{'input': 'a.png', 'ok': True, 'stages_ms': {'load': 1}}], 'summary': {}}
        data = bytearray(json.dumps(rep).encode())
        for _ in range(rng.randint(1, 6)):
            data[rng.randrange(len(data))] = rng.randrange(32, 127)
        path = os.path.join(work, 'r.json')
        open(path, 'wb').write(data)
        run('report', [a.binary, 'report', 'merge', path, path, '-o', os.path.join(work, 'm.json')], bytes(data), '.json')

print('exit codes by kind:', dict(sorted(stats.items(), key=str)))
bad = len(os.listdir(found))
print('%d findings under %s' % (bad // 2, found) if bad else 'no findings')
raise SystemExit(1 if bad else 0)
