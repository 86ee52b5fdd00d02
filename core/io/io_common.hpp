// Shared by both adapters (internal to core/io): checks done before any decoder runs, the EXR channel order,
// and the integer <-> float conversions. Both adapters call these so that they agree bit for bit.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/image.hpp"
#include "core/io/image_io.hpp"
#include "core/status.hpp"

namespace gpublur::io {

// A big-endian 32-bit field (PNG's lengths, sizes and values).
inline uint32_t be32(const unsigned char* p) {
  return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | p[3];
}

// The name a writer's messages give the file: meta.shown_name where the bytes go to a temporary first, else path.
inline const std::string& shown_name(const ImageMeta& meta, const std::string& path) {
  return meta.shown_name.empty() ? path : meta.shown_name;
}

// What a file's first bytes say it is: "png", "exr", another known format's name ("JPEG", "TIFF", ...),
// or "unrecognised data (first bytes: 3c 21 44 4f)".
std::string describe_content(const unsigned char* bytes, size_t n);
// Text from a file as a message shows it: bytes outside printable ASCII as \xNN (a file's raw bytes, terminal escapes
// among them, went to the terminal), cut to at most `max_chars` of `s` with "..." after.
std::string shown_bytes(const std::string& s, size_t max_chars);

// Before decoding: the file exists, is a regular non-empty file, has a supported extension, and its magic
// bytes match that extension. On success `format` is "exr" or "png".
Status preflight_read(const std::string& path, std::string& format);
// Whether a PNG chunk type declares the colour space: cHRM, gAMA, iCCP, sRGB, cICP (mDCV and cLLI describe an HDR
// master beside a cICP: alone they declare none).
bool png_colour_chunk(const std::string& type);
// What a PNG colour chunk (gAMA, cHRM, cICP, iCCP) declares where that is not sRGB ("gamma 1", "ICC profile
// 'Display P3'"); "" where it restates sRGB, and for any other chunk (sRGB itself).
std::string png_colour_not_srgb(const std::string& type, const unsigned char* body, size_t len);
// What a PNG's colour chunks (type, data) declare together where that is not sRGB, by the PNG specification's order
// of precedence (cICP over iCCP over sRGB over cHRM and gAMA); "" for sRGB or no colour chunk.
std::string png_declared_not_srgb(const std::vector<std::pair<std::string, std::string>>& chunks);
// Where the colour chunks a PNG read carries (ImageMeta::png_chunks: before IDAT, of their size, contents a reader
// accepts) say it is not sRGB (png_declared_not_srgb), a warning: every PNG is read as sRGB, so a linear or wide-gamut
// PNG is not treated as sRGB in silence. Readers call it once, after the read; a chunk left out as malformed declares
// nothing (readers ignore it), so it is not judged.
void warn_non_srgb_png(const std::string& path, const std::vector<std::pair<std::string, std::string>>& chunks);
// EXR uint channels are read (and written) as float, exact up to 2^24: said where a file has any (object ids).
void warn_uint_channels(const std::string& path, const std::vector<std::string>& names);

// Header-only guard against decompression bombs: call before allocating pixels.
Status check_limits(const std::string& path, uint64_t width, uint64_t height, uint64_t channels,
                    const ReadLimits& limits);

// PNG only: the IHDR colour type byte (3 = palette), or -1 if the file is too short to say.
int png_color_type(const std::string& path);

// EXR channel order. EXR headers store channels sorted by name, so "file order" is alphabetical (A,B,G,R):
// useless for images. Both adapters use this order instead: channels without a layer prefix first, then
// layers by name; inside a layer R, G, B, Y, A first (in that order), then the rest by name.
// Example: {A,B,G,N.x,R,Z} -> R,G,B,A,Z,N.x. Returns the permutation: result[i] = input index of channel i.
std::vector<int> exr_channel_order(const std::vector<std::string>& names);
// A channel name that is an alpha: A or a, alone or a layer's (diffuse.A).
bool is_alpha_name(const std::string& name);
// Index of the first alpha channel (is_alpha_name), -1 if none.
int find_alpha(const std::vector<std::string>& names);
// PNG channel names for a channel count: Y / Y,A / R,G,B / R,G,B,A.
std::vector<std::string> png_channel_names(int channels);

// Whether an image of `channels` channels named so (names may be empty) can be written as a PNG: 1 to 4 channels,
// colour roles in PNG's order (gray, gray + alpha, RGB, RGBA). prepare_write's check, and the pipeline's before the
// blur (an output that cannot be written fails as soon as the input is read).
Status png_layout_fits(const std::string& path, int channels, const std::vector<std::string>& channel_names);
// The warning a PNG write gives for the values it clips (ClipCounts), naming the output `shown`; none for none.
void warn_png_clipping(const std::string& shown, const ClipCounts& c);
// Write-side checks shared by both adapters: sizes, data length, channel names (filled in if empty); a PNG's
// clipped values (its own and meta.clipped) are said. `format` is meta.format, or the extension's when empty.
Status prepare_write(const std::string& path, const Image& img, const ImageMeta& meta, std::string& format,
                     std::vector<std::string>& names);
// PNG bit depth for a pixel type: 16 for uint16 (and half/float, which PNG cannot hold), else 8.
int png_bit_depth(PixelType t);
// EXR writes half unless meta asks for float (uint8/uint16 sources become half: enough for 16-bit data).
bool exr_writes_float(PixelType t);

// Integer sample <-> float in [0,1]. quantize clamps to [0,1] (NaN -> 0) and rounds to nearest.
inline float dequantize(uint32_t q, uint32_t maxval) { return float(q) / float(maxval); }
uint32_t quantize(float v, uint32_t maxval);

// EXR compression names as OpenEXR's enum orders them (none, rle, zips, zip, piz, pxr24, b44, b44a, dwaa,
// dwab): id from name (-1 if unknown) and back ("" if out of range).
int exr_compression_id(const std::string& name);
std::string exr_compression_name(int id);

// EXR header attributes that are part of the file's structure: never carried in meta.attributes.
bool is_structural_exr_attribute(const std::string& name);
// One of OpenEXR's standard attributes of a type other than string (xDensity, chromaticities, multiView, ...).
bool is_typed_standard_exr_attribute(const std::string& name);
// OIIO's own bookkeeping ("oiio:ColorSpace", ...), which OIIO also stores in files it writes: neither adapter
// reports or writes these, so meta.attributes holds the same set whichever adapter wrote or reads a file.
bool is_oiio_bookkeeping(const std::string& name);
// PNG text keys must be 1-79 Latin-1 characters with no leading/trailing/double spaces.
bool valid_png_text_key(const std::string& key);
// The chunks' types, comma-separated (for the writers that drop them).
std::string chunk_types(const std::vector<std::pair<std::string, std::string>>& chunks);
// The same for an EXR output, less the colour chunks that say sRGB (the EXR holds the values they decoded to) and pHYs
// (written as the EXR's density: exr_density_of).
std::string chunks_lost_in_exr(const ImageMeta& meta);

// Pixel density between the formats: PNG's pHYs (pixels per metre, or unit 0: the aspect ratio only) and EXR's
// pixelAspectRatio (a pixel's width over its height) with xDensity (pixels per inch across; down: xDensity *
// pixelAspectRatio). An EXR written from a PNG gets them from its pHYs; a PNG written from an EXR gets a pHYs from
// them.
struct Density {
  float aspect = 1;   // pixelAspectRatio
  float x_ppi = 0;    // xDensity; 0: none (the aspect ratio only)
};
// From meta.png_chunks' pHYs (false: none, or a zero count).
bool exr_density_of(const ImageMeta& meta, Density& d);
// Whether an EXR attribute is one png_phys_of turns into pHYs (so not lost in a PNG).
bool exr_density_attribute(const ExrAttribute& a);
// The pHYs data (9 bytes) from meta.exr_attributes' pixelAspectRatio / xDensity where a PNG has none of its own, ""
// where there is nothing to say or the values do not fit pHYs.
std::string png_phys_of(const ImageMeta& meta);
// meta.png_chunks and, where png_phys_of gives one, that pHYs: what a PNG writer writes.
std::vector<std::pair<std::string, std::string>> png_chunks_to_write(const ImageMeta& meta);

// The text chunks a PNG gets from meta: its attributes under valid PNG keys, OIIO's bookkeeping skipped. What it
// cannot hold is said under `shown` (the output's name) and dropped: invalid keys, values with a NUL byte, and an
// EXR's typed attributes (chromaticities, ...). Values with bytes beyond ASCII go to iTXt chunks (UTF-8), the
// rest to tEXt (Latin-1).
std::vector<std::pair<std::string, std::string>> png_text_of(const ImageMeta& meta, const std::string& shown);
// Whether a text value needs an iTXt chunk: bytes beyond ASCII that are well-formed UTF-8, which tEXt's Latin-1 would
// misread (other such bytes are a tEXt chunk's Latin-1, read as they were: back to tEXt); and an XMP packet (key
// XML:com.adobe.xmp), which the XMP specification puts in iTXt.
bool png_text_needs_itxt(const std::string& key, const std::string& value);
// The most inflated text (zTXt, compressed iTXt) a PNG read takes, all chunks together (read_png_extras).
constexpr size_t kPngTextInflatedMax = size_t(64) << 20;
// Which of a PNG output's texts (png_text_of's, in order) are written compressed (zTXt, or iTXt's compressed form) at
// level `level`: from 1 KiB, as libpng's manual advises for text "over 1000 bytes", at every level but 0 (stored); not
// an XMP packet, which the XMP specification keeps uncompressed; and only while their sizes together stay within
// kPngTextInflatedMax, so that gpublur reads back all it wrote (plain text is not counted there). A zTXt carried as
// plain text grew a 67 KB PNG into a 34.6 MB one.
std::vector<bool> png_texts_compressed(const std::vector<std::pair<std::string, std::string>>& text, int level);

// Latin-1 bytes as UTF-8 (every byte is its own code point).
std::string latin1_to_utf8(const std::string& s);
// A PNG's text keys and values for an EXR: those not UTF-8 are a tEXt or zTXt chunk's Latin-1 (as
// png_text_needs_itxt reads them) and are transcoded; EXR readers take string attributes as UTF-8, and the raw
// bytes were invalid there. An EXR's own strings are never passed through this (they stay as the file had them).
void png_text_to_utf8(ImageMeta& meta);
// The reverse for an EXR's string attributes going to a PNG: their UTF-8 keys become the Latin-1 a PNG keyword is
// (the bytes as they were read wrong, and those of U+00C0-U+00DF or U+00E0 were refused outright); a key with a
// character past U+00FF cannot be a PNG keyword: said under `shown` and dropped. Values stay UTF-8 (iTXt).
void exr_text_keys_to_latin1(ImageMeta& meta, const std::string& shown);

// Removes a partly written output file after a failed write (best effort).
void remove_partial(const std::string& path);
// Writes `bytes` as the whole file at path, every write and the close checked (a full disk fails here, not later);
// removes what it wrote on failure.
Status write_whole_file(const std::string& path, const void* bytes, size_t size);

// An output file written at any offset (sequential writes gathered in a buffer of 1 MiB), every failure kept with
// its errno, so that a writer that swallows what a failed write throws cannot hide it: OpenEXR's OutputFile
// destructor writes the offset table and closes its stream without a word (a full disk left a small EXR empty and
// reported it written). finish() says whether every byte reached the file. Streams straight to the file: a whole
// EXR in memory first held two to three times the file (5.3 GB peak for a 1 GB float 8192^2 RGBA output).
class CheckedFile {
 public:
  explicit CheckedFile(const std::string& path);  // created (truncated); the failure, if any, kept for finish()
  ~CheckedFile();                                 // not finished: closed and removed
  CheckedFile(const CheckedFile&) = delete;
  CheckedFile& operator=(const CheckedFile&) = delete;
  // False on any failure, now or before (nothing more is written after one).
  bool write_at(const void* bytes, size_t n, uint64_t offset);
  uint64_t size() const { return size_; }  // the end of what was written
  bool failed() const { return error_ != 0; }
  std::string reason() const;      // the first failure's errno, as text
  std::string error_text() const;  // "cannot create|write 'path': reason"
  // Flushes and closes; any failure so far or now: the partial file removed and "cannot write 'path': why".
  Status finish();

 private:
  bool write_fully(const char* p, size_t n, uint64_t offset);
  bool flush();
  bool fail(int err);
  std::string path_;
  int fd_ = -1;
  int error_ = 0;
  uint64_t size_ = 0;
  std::vector<char> buffer_;  // bytes not yet written, from buffer_at_ on
  uint64_t buffer_at_ = 0;
  bool finished_ = false;
};

}  // namespace gpublur::io
