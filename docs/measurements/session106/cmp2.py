import sys, exr, math
a=exr.read_exr(sys.argv[1]); b=exr.read_exr(sys.argv[2])
mx=0; cls=0
for c in a[2]:
    for x,y in zip(a[3][c],b[3][c]):
        fx,fy=math.isfinite(x),math.isfinite(y)
        if fx and fy: mx=max(mx,abs(x-y))
        elif not (repr(x)==repr(y)): cls+=1
print('maxdiff',mx,'nonfinite-class-mismatch',cls)
