#include "core/reference/cpu_image.hpp"

namespace gpublur {

CpuImage CpuImage::view(Image& img) {
  CpuImage c;
  c.width = img.width, c.height = img.height, c.channels = img.channels;
  c.f = img.data.data();
  return c;
}

CpuImage CpuImage::make(int w, int h, int ch, const ImageDecl& decl) {
  CpuImage c;
  c.width = w, c.height = h, c.channels = ch, c.pad = decl.pad, c.f64 = decl.f64;
  const size_t n = size_t(w + 2 * decl.pad) * size_t(h + 2 * decl.pad) * size_t(ch);
  if (decl.f64) {
    c.own_d.assign(n, 0.0);
    c.d = c.own_d.data();
  } else {
    c.own_f.assign(n, 0.0f);
    c.f = c.own_f.data();
  }
  return c;
}

double CpuImage::read(int x, int y, int c, Border b) const {
  if (!stored(x, y)) {
    x = remap_index(x, width, b);
    y = remap_index(y, height, b);
    if (x < 0 || y < 0) return 0.0;
  }
  return get(offset(x, y) + size_t(c));
}

void gather_lines(const CpuImage& src, int axis, int first, int count, int ext, Border b, LineBatch& out) {
  const int C = src.channels;
  out.axis = axis, out.first = first, out.count = count, out.ext = ext;
  out.n = axis == 0 ? src.width : src.height;
  out.vec = count * C;
  out.buf.assign(size_t(out.n + 2 * ext) * size_t(out.vec), 0.0);
  for (int p = -ext; p < out.n + ext; ++p) {
    double* v = out.at(p);
    for (int k = 0; k < count; ++k) {
      const int x = axis == 0 ? p : first + k, y = axis == 0 ? first : p;
      if (src.stored(x, y)) {
        const size_t o = src.offset(x, y);
        for (int c = 0; c < C; ++c) v[k * C + c] = src.get(o + size_t(c));
      } else {
        for (int c = 0; c < C; ++c) v[k * C + c] = src.read(x, y, c, b);
      }
    }
  }
}

void scatter_lines(const std::vector<double>& values, const LineBatch& shape, CpuImage& dst) {
  const int C = dst.channels;
  for (int p = 0; p < shape.n; ++p) {
    const double* v = values.data() + size_t(p) * size_t(shape.vec);
    for (int k = 0; k < shape.count; ++k) {
      const int x = shape.axis == 0 ? p : shape.first + k, y = shape.axis == 0 ? shape.first : p;
      const size_t o = dst.offset(x, y);
      for (int c = 0; c < C; ++c) dst.set(o + size_t(c), v[k * C + c]);
    }
  }
}

}  // namespace gpublur
