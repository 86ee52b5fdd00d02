// Text names of the small enums, kept together so parsing and printing agree.
#include <algorithm>
#include <cctype>

#include "core/border.hpp"
#include "core/image.hpp"
#include "core/io/image_io.hpp"

namespace gpublur {

const char* border_name(Border b) {
  switch (b) {
    case Border::Clamp: return "clamp";
    case Border::Mirror: return "mirror";
    case Border::Wrap: return "wrap";
    default: return "zero";
  }
}

bool parse_border(const std::string& s, Border& out) {
  for (Border b : {Border::Clamp, Border::Mirror, Border::Wrap, Border::Zero})
    if (s == border_name(b)) return out = b, true;
  return false;
}

const char* pixel_type_name(PixelType t) {
  switch (t) {
    case PixelType::UInt8: return "uint8";
    case PixelType::UInt16: return "uint16";
    case PixelType::Half: return "half";
    default: return "float";
  }
}

bool parse_pixel_type(const std::string& s, PixelType& out) {
  for (PixelType t : {PixelType::UInt8, PixelType::UInt16, PixelType::Half, PixelType::Float})
    if (s == pixel_type_name(t)) return out = t, true;
  return false;
}

// Pure name logic, so it lives in gpublur_core: the pipeline maps names without linking the adapters.
std::string lowercase_extension(const std::string& path) {
  auto slash = path.find_last_of('/');
  auto dot = path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
  std::string ext = path.substr(dot + 1);
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return ext;
}

std::string format_from_extension(const std::string& path) {
  const std::string ext = lowercase_extension(path);
  if (ext == "exr") return "exr";
  if (ext == "png") return "png";
  return "";
}

}  // namespace gpublur
