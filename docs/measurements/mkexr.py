#!/usr/bin/env python3
"""mkexr.py OUT W H C: an uncompressed float EXR of W x H with C channels (3: B,G,R; 4: A,B,G,R), a smooth ramp per
line (values in [0, 1)), written fast with no dependencies."""
import struct, sys
from array import array

out, w, h, c = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
names = ["A", "B", "G", "R"][4 - c:]

def attr(name, typ, payload):
    return name.encode() + b"\0" + typ.encode() + b"\0" + struct.pack("<i", len(payload)) + payload

chl = b"".join(n.encode() + b"\0" + struct.pack("<iBBBBii", 2, 0, 0, 0, 0, 1, 1) for n in names) + b"\0"
hdr = b"\x76\x2f\x31\x01" + struct.pack("<i", 2)
hdr += attr("channels", "chlist", chl)
hdr += attr("compression", "compression", b"\0")
hdr += attr("dataWindow", "box2i", struct.pack("<iiii", 0, 0, w - 1, h - 1))
hdr += attr("displayWindow", "box2i", struct.pack("<iiii", 0, 0, w - 1, h - 1))
hdr += attr("lineOrder", "lineOrder", b"\0")
hdr += attr("pixelAspectRatio", "float", struct.pack("<f", 1.0))
hdr += attr("screenWindowCenter", "v2f", struct.pack("<ff", 0, 0))
hdr += attr("screenWindowWidth", "float", struct.pack("<f", 1.0))
hdr += b"\0"
line_bytes = w * 4 * c
table_at = len(hdr)
first = table_at + 8 * h
with open(out, "wb") as f:
    f.write(hdr)
    f.write(b"".join(struct.pack("<Q", first + y * (8 + line_bytes)) for y in range(h)))
    ramp = array("f", [(x % 256) / 256.0 for x in range(w)]).tobytes()
    body = ramp * c
    for y in range(h):
        f.write(struct.pack("<ii", y, line_bytes))
        f.write(body)
