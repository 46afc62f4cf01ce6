#!/usr/bin/env python3
"""make_seeds.py - the fuzzers' seed corpus: one small file of every image
kind segbench reads (PNG of every colour type and bit depth, interlaced,
with ancillary chunks; PGM/PPM plain and binary, 8- and 16-bit, with
comments), a few broken ones, and manifests.  Run from this directory;
the files it writes are committed."""
import os
import struct
import zlib


def chunk(kind, data):
    return struct.pack('>I', len(data)) + kind + data + struct.pack('>I', zlib.crc32(kind + data))


def png(name, w, h, colour, depth, interlace=0, extra=b'', palette=None):
    channels = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[colour]
    bits = channels * depth
    row_bytes = (w * bits + 7) // 8
    rows = b''.join(b'\x00' + bytes((x * 37 + y * 11) & 0xff for x in range(row_bytes)) for y in range(h))
    if interlace:   # any bytes decode: seven passes, each row filtered; good enough as a seed
        rows = rows * 2
    body = chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, depth, colour, 0, 0, interlace))
    if palette is not None:
        body += chunk(b'PLTE', palette)
    body += extra + chunk(b'IDAT', zlib.compress(rows)) + chunk(b'IEND', b'')
    os.makedirs('image', exist_ok=True)
    with open(os.path.join('image', name), 'wb') as f:
        f.write(b'\x89PNG\r\n\x1a\n' + body)


def raw(directory, name, data):
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, name), 'wb') as f:
        f.write(data)


for depth in (1, 2, 4, 8, 16):
    png(f'grey{depth}.png', 7, 5, 0, depth)
png('grey-alpha8.png', 6, 4, 4, 8)
png('grey-alpha16.png', 6, 4, 4, 16)
png('rgb8.png', 5, 3, 2, 8)
png('rgb16.png', 5, 3, 2, 16)
png('rgba8.png', 5, 3, 6, 8)
png('rgba16.png', 4, 3, 6, 16)
pal = bytes(range(48))
for depth in (1, 2, 4, 8):
    png(f'palette{depth}.png', 9, 4, 3, depth, palette=pal)
png('palette-trns.png', 9, 4, 3, 8, palette=pal, extra=chunk(b'tRNS', b'\x00\x80\xff'))
png('interlaced.png', 9, 9, 2, 8, interlace=1)
png('text.png', 3, 3, 0, 8, extra=chunk(b'tEXt', b'Comment\x00seed') + chunk(b'zTXt', b'k\x00\x00' + zlib.compress(b'z')))
png('iccp.png', 3, 3, 2, 8, extra=chunk(b'iCCP', b'p\x00\x00' + zlib.compress(b'x' * 64)))
raw('image', 'huge-text-claim.png', b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', 9, 7, 8, 0, 0, 0, 0))
    + struct.pack('>I', 0x7fffffff) + b'tEXtabc')
raw('image', 'truncated.png', open('image/rgb8.png', 'rb').read()[:40])

pnm = {
    'p5.pgm': b'P5\n# a comment\n4 3\n255\n' + bytes(range(12)),
    'p5-16.pgm': b'P5 3 2 65535\n' + bytes(range(12)),
    'p6.ppm': b'P6\n3 2\n255\n' + bytes(range(18)),
    'p6-16.ppm': b'P6\n2 2\n1000\n' + bytes(range(24)),
    'p2.pgm': b'P2\n3 2\n15\n0 1 2\n3 4 15\n',
    'p3.ppm': b'P3\n2 1\n255\n1 2 3 4 5 6\n',
    'zero.pgm': b'P5\n0 7\n255\n',
    'short.ppm': b'P6\n30 20\n255\n' + bytes(10),
}
for name, data in pnm.items():
    raw('image', name, data)
    raw('pnm', name, data)

head = '# name\tpath\tkind\twidth\theight\trect_x\trect_y\trect_w\trect_h\tlabels\tmask\tgallery\tsweep\n'
raw('manifest', 'good.tsv', (head + 'a\ta.png\tsynthetic\t64\t48\t1\t2\t30\t20\ta.labels.png\ta.mask.png\tyes\tno\n'
                             'b\t/x/b.png\tphoto\t5\t5\t-\t-\t-\t-\t-\t-\tno\tyes\n').encode())
raw('manifest', 'old-12-columns.tsv', b'a\ta.png\tsynthetic\t4\t4\t-\t-\t-\t-\t-\t-\tno\n')
raw('manifest', 'short-row.tsv', b'a\ta.png\tsynthetic\n')

# results CSVs (fuzz_results: the rows, a form feed, then the samples)
rows_head = ('algo,stage,variant,backend,threads,image,width,height,n,median_ms,min_ms,p25_ms,p75_ms,max_ms,'
             'e2e_n,e2e_median_ms,e2e_min_ms,e2e_p25_ms,e2e_p75_ms,e2e_max_ms,bytes,gbps,peak_fraction,agreement,'
             'agreement_metric,commit,date,run_id,flags,frame_n,frame_median_ms,frame_min_ms,frame_p25_ms,'
             'frame_p75_ms,frame_max_ms,setup_n,setup_median_ms,setup_min_ms,setup_p25_ms,setup_p75_ms,setup_max_ms\n')
row = ('integral,sum,cpu,cpu,1,"a,b\r\nc.png",4,4,2,1,1,1,1,1,1,2,2,2,2,2,80,0.1,0.01,exact,"all 16 sums equal",'
       'abc,2026-11-25T00:00:00Z,R1,,1,1,1,1,1,1,1,0.1,0.1,0.1,0.1,0.1\n')
samples_head = 'algo,stage,variant,threads,image,kind,samples_ms,run_id\n'
samples = ('integral,sum,cpu,1,"a,b\r\nc.png",kernel,1.0 1.0,R1\n'
           'integral,sum,cpu,1,"a,b\r\nc.png",e2e,2.0,R1\n'
           'integral,sum,cpu,1,"a,b\r\nc.png",kernel,1.0,R0\n'
           'integral,sum,cpu,1,other,frame,1.0,R1\n'
           'integral,sum,cpu,1,"a,b\r\nc.png",setup,0.1,R1\n'
           'integral,sum,cpu,1,"a,b\r\nc.png",frame,1.0\n')
raw('results', 'good.csv', (rows_head + row + '\f' + samples_head + samples).encode())
raw('results', 'cut-off.csv', (rows_head + row[:40] + '\f' + samples_head + samples[:50]).encode())
raw('results', 'old-samples.csv', (rows_head + row + '\fthe old header\n' + 'integral,sum,cpu,1,x,kernel,1.0\n').encode())

# env.json (fuzz_env)
raw('env', 'env.json', b'{\n  "machine_id": "h100-80gb-hbm3",\n  "date": "2026-11-25T00:00:00Z",\n'
    b'  "commit": "abc",\n  "dirty": false,\n  "tree_commit": "def-dirty",\n  "dataset": "default",\n'
    b'  "run_id": "R1",\n  "run_options": "set=default budget=100",\n  "run_algos": "integral",\n'
    b'  "run_finished": true,\n  "rows_planned": 10,\n  "rows_measured": 10,\n'
    b'  "gpu_name": "NVIDIA \\"H100\\" \\\\ 80GB",\n  "host_copy_gbps": {"1": 22.7, "16": 90.1},\n}\n')
raw('env', 'empty.json', b'')
raw('env', 'unterminated.json', b'{"machine_id": "abc\\')
