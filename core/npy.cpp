// SPDX-License-Identifier: Apache-2.0
#include "core/npy.hpp"

#include <bit>
#include <charconv>
#include <cmath>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string_view>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/error.hpp"
#include "core/files.hpp"

namespace scancheck {
namespace fs = std::filesystem;
namespace {

static_assert(std::endian::native == std::endian::little, "array data is copied as little-endian bytes");

constexpr std::string_view magic = "\x93NUMPY";
constexpr std::size_t array_align = 64;    // numpy's ARRAY_ALIGN: data starts on a 64-byte boundary
constexpr std::size_t growth_digits = 21;  // numpy's GROWTH_AXIS_MAX_DIGITS: room to grow the first axis

enum class Kind { f4, f8, i4 };

struct Header {
  Kind kind;
  Dims dims;
  std::uint64_t data_offset;
};

[[noreturn]] void fail(const fs::path& path, std::string_view what) {
  throw InputError(fmt::format("{}: {}", path.string(), what));
}

// Thrown by the header parser; read_header adds the file name.
struct HeaderError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The Python dict literal numpy writes, e.g. {'descr': '<f4', 'fortran_order': False, 'shape': (2, 16), }.
// Any whitespace, key order, quote style and trailing commas are accepted; no other Python syntax is.
class HeaderParser {
 public:
  explicit HeaderParser(std::string_view text) : text_(text) {}

  struct Fields {
    std::optional<std::string> descr;
    std::optional<bool> fortran_order;
    std::optional<Dims> shape;
  };

  Fields parse() {
    Fields f;
    expect('{');
    while (!accept('}')) {
      const std::string key = quoted();
      expect(':');
      if (key == "descr") set(f.descr, quoted(), key);
      else if (key == "fortran_order") set(f.fortran_order, boolean(), key);
      else if (key == "shape") set(f.shape, tuple(), key);
      else throw HeaderError(fmt::format("unexpected key '{}'", key));
      if (!accept(',')) {
        expect('}');
        break;
      }
    }
    skip_space();
    if (pos_ != text_.size()) throw HeaderError("text after the closing '}'");
    return f;
  }

 private:
  template <class T>
  static void set(std::optional<T>& field, T value, const std::string& key) {
    if (field) throw HeaderError(fmt::format("duplicate key '{}'", key));
    field = std::move(value);
  }

  void skip_space() {
    while (pos_ < text_.size() && std::string_view(" \t\r\n").find(text_[pos_]) != std::string_view::npos) ++pos_;
  }
  bool accept(char c) {
    skip_space();
    if (pos_ >= text_.size() || text_[pos_] != c) return false;
    ++pos_;
    return true;
  }
  void expect(char c) {
    if (!accept(c)) throw HeaderError(fmt::format("expected '{}' at offset {}", c, pos_));
  }

  std::string quoted() {
    skip_space();
    if (pos_ >= text_.size() || (text_[pos_] != '\'' && text_[pos_] != '"'))
      throw HeaderError(fmt::format("expected a quoted string at offset {}", pos_));
    const char quote = text_[pos_++];
    const std::size_t end = text_.find(quote, pos_);
    if (end == std::string_view::npos) throw HeaderError("unterminated string");
    std::string s(text_.substr(pos_, end - pos_));
    if (s.find('\\') != std::string::npos) throw HeaderError("escape sequences are not supported");
    pos_ = end + 1;
    return s;
  }

  bool boolean() {
    skip_space();
    for (const auto& [word, value] : {std::pair<std::string_view, bool>{"True", true}, {"False", false}}) {
      if (text_.substr(pos_, word.size()) != word) continue;
      pos_ += word.size();
      return value;
    }
    throw HeaderError(fmt::format("expected True or False at offset {}", pos_));
  }

  Dims tuple() {
    expect('(');
    Dims dims;
    while (!accept(')')) {
      dims.push_back(dimension());
      if (!accept(',')) {
        expect(')');
        break;
      }
    }
    return dims;
  }

  std::int64_t dimension() {
    skip_space();
    std::int64_t v = -1;
    const char* first = text_.data() + pos_;
    const auto [end, ec] = std::from_chars(first, text_.data() + text_.size(), v);
    if (ec != std::errc{} || v < 0)
      throw HeaderError(fmt::format("shape entry at offset {} is not a non-negative 64-bit integer", pos_));
    pos_ += static_cast<std::size_t>(end - first);
    return v;
  }

  std::string_view text_;
  std::size_t pos_ = 0;
};

std::size_t item_size(Kind k) { return k == Kind::f8 ? 8 : 4; }

// numpy writes '<' for multi-byte types on every machine; '=' (native) and '|' are unambiguous on the
// little-endian hosts this code runs on. '>' is big-endian and rejected.
std::optional<Kind> kind_of(std::string_view descr) {
  if (descr.size() != 3 || std::string_view("<=|").find(descr[0]) == std::string_view::npos) return {};
  const std::string_view code = descr.substr(1);
  if (code == "f4") return Kind::f4;
  if (code == "f8") return Kind::f8;
  if (code == "i4") return Kind::i4;
  return {};
}

std::uint64_t little_endian(const unsigned char* bytes, std::size_t n) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < n; ++i) v |= std::uint64_t{bytes[i]} << (8 * i);
  return v;
}

std::string read_bytes(std::istream& in, const fs::path& path, std::size_t n) {
  std::string s(n, '\0');
  if (!in.read(s.data(), static_cast<std::streamsize>(n))) fail(path, "read error");
  return s;
}

Header header_from(const fs::path& path, const std::string& text) {
  HeaderParser::Fields f;
  try {
    f = HeaderParser(text).parse();
  } catch (const HeaderError& e) {
    fail(path, fmt::format("header is not a valid dict literal: {}", e.what()));
  }
  for (const auto& [present, key] : {std::pair{f.descr.has_value(), "descr"},
                                     {f.fortran_order.has_value(), "fortran_order"},
                                     {f.shape.has_value(), "shape"}})
    if (!present) fail(path, fmt::format("header has no '{}'", key));
  const std::optional<Kind> kind = kind_of(*f.descr);
  if (!kind)
    fail(path, fmt::format("dtype '{}' is not supported (expected little-endian '<f4', '<f8' or '<i4')", *f.descr));
  if (*f.fortran_order) fail(path, "fortran_order True is not supported (C order only)");
  return {*kind, std::move(*f.shape), 0};
}

Header read_header(std::istream& in, const fs::path& path, std::uint64_t file_size) {
  if (file_size < magic.size() + 2 || read_bytes(in, path, magic.size()) != magic)
    fail(path, "not an .npy file (bad magic)");
  const std::string version = read_bytes(in, path, 2);
  const int major = static_cast<unsigned char>(version[0]), minor = static_cast<unsigned char>(version[1]);
  if (major < 1 || major > 3 || minor != 0)
    fail(path, fmt::format("unsupported .npy format version {}.{}", major, minor));
  const std::size_t length_bytes = major == 1 ? 2 : 4;
  const std::uint64_t prefix = magic.size() + 2 + length_bytes;
  if (file_size < prefix) fail(path, "truncated header");
  const std::string length = read_bytes(in, path, length_bytes);
  const std::uint64_t header_length =
      little_endian(reinterpret_cast<const unsigned char*>(length.data()), length_bytes);
  if (prefix + header_length > file_size)
    fail(path, fmt::format("truncated header (header length {} runs past the end of the {}-byte file)", header_length,
                           file_size));
  Header h = header_from(path, read_bytes(in, path, header_length));
  h.data_offset = prefix + header_length;
  return h;
}

void check_data_size(const fs::path& path, const Header& h, std::uint64_t file_size) {
  std::uint64_t bytes = item_size(h.kind);
  for (std::int64_t d : h.dims)
    if (__builtin_mul_overflow(bytes, static_cast<std::uint64_t>(d), &bytes))
      fail(path, fmt::format("shape {} is too large", to_string(h.dims)));
  const std::uint64_t found = file_size - h.data_offset;
  if (found < bytes) fail(path, fmt::format("truncated data (expected {} bytes, found {})", bytes, found));
  if (found > bytes)
    fail(path, fmt::format("trailing data ({} bytes after the {} bytes of the array)", found - bytes, bytes));
}

template <class T>
Tensor<T> read_data(std::istream& in, const fs::path& path, Dims dims) {
  Tensor<T> t(std::move(dims));
  if (!in.read(reinterpret_cast<char*>(t.data()), static_cast<std::streamsize>(t.size() * sizeof(T))))
    fail(path, "read error");
  return t;
}

Tensor<float> narrow_to_float(const fs::path& path, const Tensor<double>& d, bool allow_rounding) {
  std::vector<float> values(static_cast<std::size_t>(d.size()));
  for (std::int64_t i = 0; i < d.size(); ++i) {
    values[static_cast<std::size_t>(i)] = static_cast<float>(d[i]);
    if (allow_rounding || values[static_cast<std::size_t>(i)] == d[i] || std::isnan(d[i])) continue;
    fail(path, fmt::format("float64 value {:.17g} at {} is not exactly representable in float32", d[i],
                           index_string(d.dims(), i)));
  }
  return Tensor<float>(d.dims(), std::move(values));
}

std::string_view dtype_name(const AnyTensor& t) {
  constexpr std::string_view names[] = {"float32 ('<f4')", "float64 ('<f8')", "int32 ('<i4')"};
  return names[t.index()];
}

template <class T>
constexpr std::string_view descr_of() {
  if constexpr (std::is_same_v<T, float>) return "<f4";
  if constexpr (std::is_same_v<T, double>) return "<f8";
  if constexpr (std::is_same_v<T, std::int32_t>) return "<i4";
}

// Byte for byte what numpy.save writes: the dict with keys in sorted order, spare spaces after it for the
// first axis to grow, then spaces and '\n' up to the next multiple of 64 (never zero padding). Version 2.0
// only when the header does not fit version 1.0's 16-bit length.
std::string preamble(std::string_view descr, const Dims& dims) {
  const std::string shape =
      dims.size() == 1 ? fmt::format("({},)", dims[0]) : fmt::format("({})", fmt::join(dims, ", "));
  std::string dict = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': {}, }}", descr, shape);
  if (!dims.empty()) dict.append(growth_digits - std::to_string(dims[0]).size(), ' ');
  for (const std::size_t length_bytes : {2, 4}) {
    const std::size_t unpadded = magic.size() + 2 + length_bytes + dict.size() + 1;
    const std::size_t header_length = dict.size() + 1 + (array_align - unpadded % array_align);
    if (length_bytes == 2 && header_length > 0xffff) continue;
    std::string out(magic);
    out += static_cast<char>(length_bytes == 2 ? 1 : 2);
    out += '\0';
    for (std::size_t i = 0; i < length_bytes; ++i) out += static_cast<char>((header_length >> (8 * i)) & 0xff);
    out += dict;
    out.append(header_length - dict.size() - 1, ' ');
    out += '\n';
    return out;
  }
  throw std::length_error("npy header longer than 4 GiB");
}

template <class T>
void write_tensor(const fs::path& path, const Tensor<T>& t) {
  if (t.size() != element_count(t.dims()))
    throw std::logic_error(
        fmt::format("{}: tensor holds {} values for shape {}", path.string(), t.size(), to_string(t.dims())));
  const std::string head = preamble(descr_of<T>(), t.dims());
  write_file_atomically(path, {head, std::string_view(reinterpret_cast<const char*>(t.data()), t.size() * sizeof(T))});
}

}  // namespace

AnyTensor read_npy(const fs::path& path) {
  std::error_code ec;
  const std::uint64_t size = fs::file_size(path, ec);
  if (ec) fail(path, fmt::format("cannot read: {}", ec.message()));
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, "cannot open");
  return read_npy(in, path, size);
}

AnyTensor parse_npy(std::string_view bytes, const fs::path& name) {
  std::istringstream in(std::string(bytes), std::ios::binary);
  return read_npy(in, name, bytes.size());
}

AnyTensor read_npy(std::istream& in, const fs::path& path, std::uint64_t size) {
  Header h = read_header(in, path, size);
  check_data_size(path, h, size);
  switch (h.kind) {
    case Kind::f4: return read_data<float>(in, path, std::move(h.dims));
    case Kind::f8: return read_data<double>(in, path, std::move(h.dims));
    case Kind::i4: return read_data<std::int32_t>(in, path, std::move(h.dims));
  }
  throw std::logic_error("unreachable npy kind");
}

Tensor<float> read_npy_float(const fs::path& path, bool allow_rounding) {
  AnyTensor any = read_npy(path);
  if (auto* f = std::get_if<Tensor<float>>(&any)) return std::move(*f);
  if (auto* d = std::get_if<Tensor<double>>(&any)) return narrow_to_float(path, *d, allow_rounding);
  fail(path, fmt::format("holds {} values where float32 or float64 is expected", dtype_name(any)));
}

Tensor<double> read_npy_double(const fs::path& path) {
  AnyTensor any = read_npy(path);
  if (auto* d = std::get_if<Tensor<double>>(&any)) return std::move(*d);
  if (auto* f = std::get_if<Tensor<float>>(&any))
    return Tensor<double>(f->dims(), std::vector<double>(f->values().begin(), f->values().end()));
  fail(path, fmt::format("holds {} values where float32 or float64 is expected", dtype_name(any)));
}

Tensor<std::int32_t> read_npy_int32(const fs::path& path) {
  AnyTensor any = read_npy(path);
  if (auto* i = std::get_if<Tensor<std::int32_t>>(&any)) return std::move(*i);
  fail(path, fmt::format("holds {} values where int32 ('<i4') is expected", dtype_name(any)));
}

void write_npy(const fs::path& path, const Tensor<float>& t) { write_tensor(path, t); }
void write_npy(const fs::path& path, const Tensor<double>& t) { write_tensor(path, t); }
void write_npy(const fs::path& path, const Tensor<std::int32_t>& t) { write_tensor(path, t); }

}  // namespace scancheck
