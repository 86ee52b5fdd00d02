import struct, sys, math
def write_exr(path, w, h, chans, data):
    """chans: list of names (will be sorted); data: dict name-> list of h*w floats row-major"""
    names = sorted(chans)
    def attr(n, t, v): return n.encode()+b'\0'+t.encode()+b'\0'+struct.pack('<i', len(v))+v
    cl = b''.join(c.encode()+b'\0'+struct.pack('<iB3xii', 2, 0, 1, 1) for c in names)+b'\0'
    box = struct.pack('<iiii', 0, 0, w-1, h-1)
    hdr = b'\x76\x2f\x31\x01' + struct.pack('<I', 2)
    hdr += attr('channels','chlist',cl)+attr('compression','compression',b'\0')+attr('dataWindow','box2i',box)
    hdr += attr('displayWindow','box2i',box)+attr('lineOrder','lineOrder',b'\0')+attr('pixelAspectRatio','float',struct.pack('<f',1))
    hdr += attr('screenWindowCenter','v2f',struct.pack('<ff',0,0))+attr('screenWindowWidth','float',struct.pack('<f',1))+b'\0'
    linesz = 4*w*len(names)
    start = len(hdr)+8*h
    offs = b''.join(struct.pack('<Q', start+y*(linesz+8)) for y in range(h))
    body = b''
    for y in range(h):
        body += struct.pack('<ii', y, linesz)
        for c in names:
            body += struct.pack('<%df'%w, *data[c][y*w:(y+1)*w])
    open(path,'wb').write(hdr+offs+body)

def read_exr(path):
    b = open(path,'rb').read()
    assert b[:4]==b'\x76\x2f\x31\x01'
    p = 8; attrs = {}
    while b[p] != 0:
        e = b.index(b'\0', p); n = b[p:e].decode(); p = e+1
        e = b.index(b'\0', p); t = b[p:e].decode(); p = e+1
        sz, = struct.unpack_from('<i', b, p); p += 4
        attrs[n] = (t, b[p:p+sz]); p += sz
    p += 1
    comp = attrs['compression'][1][0]
    assert comp == 0, 'compression %d' % comp
    x0,y0,x1,y1 = struct.unpack('<iiii', attrs['dataWindow'][1])
    w, h = x1-x0+1, y1-y0+1
    cl = attrs['channels'][1]; q = 0; chans = []
    while cl[q] != 0:
        e = cl.index(b'\0', q); n = cl[q:e].decode(); q = e+1
        pt, = struct.unpack_from('<i', cl, q); q += 16
        chans.append((n, pt))
    p += 8*h
    data = {n: [0.0]*(w*h) for n,_ in chans}
    for _ in range(h):
        y, sz = struct.unpack_from('<ii', b, p); p += 8; y -= y0
        for n, pt in chans:
            if pt == 2: vals = struct.unpack_from('<%df'%w, b, p); p += 4*w
            elif pt == 1: vals = struct.unpack_from('<%de'%w, b, p); p += 2*w
            else: vals = struct.unpack_from('<%dI'%w, b, p); p += 4*w
            data[n][y*w:(y+1)*w] = vals
    return w, h, [n for n,_ in chans], data
