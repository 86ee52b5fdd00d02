#include "core/bench.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <new>
#include <random>
#include <sstream>
#include <tuple>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "core/io/image_io.hpp"
#include "core/plan.hpp"
#include "core/registry.hpp"

namespace gpublur {

int BenchResult::failed() const {
  int n = 0;
  for (const auto& c : cases) n += c.error.empty() ? 0 : 1;
  return n;
}

namespace {

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  std::istringstream in(s);
  while (std::getline(in, cur, sep))
    if (!cur.empty()) out.push_back(cur);
  return out;
}

// The lists take spaces and tabs around their items ("copy, box"), as --sigma's.
constexpr const char* kListSpace = " \t";

// --method's list: entries split at commas, except where a comma continues a variant's list value (no method
// name starts with a digit or a sign): "kawase:offsets=1,2,box" is kawase:offsets=1,2 and box. An empty item inside
// such a value stays in it ("kawase:offsets=1,,2"), so that the method refuses it as it refuses --param offsets=1,,2;
// between entries ("copy,,box") it is skipped.
std::vector<std::string> split_method_list(const std::string& list) {
  std::vector<std::string> out;
  std::string cur;
  std::istringstream in(list);
  int empties = 0;  // empty items since the last entry
  while (std::getline(in, cur, ',')) {
    const std::string piece = trimmed(cur, kListSpace);
    if (piece.empty()) {
      ++empties;
      continue;
    }
    const bool continues = !out.empty() && out.back().find('=') != std::string::npos &&
                           (std::isdigit(static_cast<unsigned char>(piece[0])) || piece[0] == '-' || piece[0] == '+');
    if (continues)
      out.back() += std::string(size_t(empties) + 1, ',') + piece;
    else
      out.push_back(piece);
    empties = 0;
  }
  return out;
}

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

// The parameters a method gets: sigma, then each extra one it declares.
std::map<std::string, std::string> params_for(const MethodSpec& m, double sigma,
                                              const std::map<std::string, std::string>& extra) {
  std::map<std::string, std::string> p{{"sigma", number(sigma)}};
  for (const auto& [k, v] : extra)
    if (find_param(m, k)) p[k] = v;
  return p;
}

// "box:impl=sat:passes=4" -> name "box", {impl: sat, passes: 4}; label: the entry with its settings in name order
// and no spaces around names and values ("box: passes = 4:impl=sat" -> "box:impl=sat:passes=4"), the table's and
// the JSON's method, so one variant written two ways runs once. Errors are usage errors.
Status split_variant(const std::string& entry, std::string& name, std::map<std::string, std::string>& params,
                     std::string& label) {
  std::vector<std::string> parts;
  std::string cur;
  std::istringstream in(entry);
  while (std::getline(in, cur, ':')) parts.push_back(trimmed(cur, kListSpace));
  name = parts.empty() ? "" : parts[0];
  label = name;
  params.clear();
  if (!entry.empty() && entry.back() == ':')  // getline drops the empty setting after a trailing ':'
    return Status::fail("method variant '" + entry + "': '' is not name=value");
  for (size_t i = 1; i < parts.size(); ++i) {
    const auto eq = parts[i].find('=');
    if (eq == std::string::npos || eq == 0)
      return Status::fail("method variant '" + entry + "': '" + parts[i] + "' is not name=value");
    const std::string key = trimmed(parts[i].substr(0, eq), kListSpace);
    // sigma comes from --sigma (the table's and the JSON's sigma column); a variant's own was run but not shown.
    if (key == "sigma")
      return Status::fail("method variant '" + entry + "': use --sigma for the sigma list, not :sigma=");
    const std::string value = trimmed(parts[i].substr(eq + 1), kListSpace);
    if (!params.emplace(key, value).second)
      return Status::fail("method variant '" + entry + "': '" + key + "' given twice");
  }
  for (const auto& [key, value] : params) label += ":" + key + "=" + value;
  return Status::success();
}

}  // namespace

Status resolve_bench_methods(const std::string& list, const std::string& backend, std::vector<std::string>& out,
                             const std::map<std::string, std::string>& given) {
  out.clear();
  if (list == "all") {
    // A method with a required parameter (a user kernel's file) joins where --param gives it.
    for (const auto& m : method_registry()) {
      bool missing = false;
      for (const auto& p : m.params) missing = missing || (p.required() && !given.count(p.name));
      if ((backend.empty() || method_on_backend(m, backend)) && !missing) out.push_back(m.name);
    }
    return Status::success();
  }
  for (const auto& entry : split_method_list(list)) {
    std::string name, label;
    std::map<std::string, std::string> variant;
    if (Status s = split_variant(entry, name, variant, label); !s) return s;
    const MethodSpec* m = find_method(name);
    if (!m) return Status::fail("unknown method '" + name + "' (see `gpublur methods`)");
    if (!backend.empty() && !method_on_backend(*m, backend))
      return Status::fail("method '" + name + "' is not implemented on backend '" + backend + "'");
    for (const auto& [k, v] : variant)
      if (!find_param(*m, k)) return Status::fail("method '" + name + "' has no parameter '" + k + "'");
    if (std::find(out.begin(), out.end(), label) == out.end()) out.push_back(label);  // "box: impl=sat" once
  }
  if (out.empty()) return Status::fail("--method: no method given");
  return Status::success();
}

bool parse_bench_sigmas(const std::string& list, std::vector<double>& out) {
  out.clear();
  for (const std::string& piece : split(list, ',')) {
    const std::string item = trimmed(piece, kListSpace);
    if (item.empty()) continue;
    double v = 0;
    if (!parse_decimal(item, v)) return false;
    if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
  }
  return !out.empty();
}

Status parse_bench_sizes(const std::string& list, std::vector<std::pair<int, int>>& out) {
  out.clear();
  for (std::string item : split(list, ',')) {
    // Spaces around an item or its x allowed ("16, 32", "16 x 32"), as --sigma's.
    item.erase(std::remove_if(item.begin(), item.end(), [](char c) { return c == ' ' || c == '\t'; }), item.end());
    if (item.empty()) continue;  // (as split drops empty items)
    // Digits only, read whole (sscanf's %d wrapped 4294967328 round to 32 and benched that).
    auto side = [](const std::string& t, long& v) {
      if (t.empty() || t.size() > 6 || t.find_first_not_of("0123456789") != std::string::npos) return false;
      v = std::stol(t);
      return v >= 1 && v <= 65536;
    };
    const auto x = item.find_first_of("xX");
    long w = 0, h = 0;
    const bool ok = x == std::string::npos ? side(item, w) && side(item, h)
                                           : side(item.substr(0, x), w) && side(item.substr(x + 1), h);
    if (!ok) return Status::fail("--size '" + item + "' is not N or WxH with 1 <= N <= 65536");
    // The readers' pixel limit (ReadLimits): a size no image file may have is not benched either.
    if (uint64_t(w) * uint64_t(h) > ReadLimits{}.max_pixels)
      return Status::fail(fmt::format("--size '{}' is {} pixels, over the {} an image may hold", item,
                                      uint64_t(w) * uint64_t(h), ReadLimits{}.max_pixels));
    if (std::find(out.begin(), out.end(), std::pair<int, int>(int(w), int(h))) == out.end())  // once, as methods
      out.emplace_back(int(w), int(h));
  }
  if (out.empty()) return Status::fail("--size: no size given");
  return Status::success();
}

Status parse_bench_channels(const std::string& list, std::vector<int>& out) {
  out.clear();
  for (const std::string& piece : split(list, ',')) {
    const std::string item = trimmed(piece, kListSpace);
    if (item.empty()) continue;
    if (item.size() != 1 || item[0] < '1' || item[0] > '4')
      return Status::fail("--channels '" + item + "' is not a channel count 1..4");
    if (std::find(out.begin(), out.end(), item[0] - '0') == out.end()) out.push_back(item[0] - '0');
  }
  if (out.empty()) return Status::fail("--channels: no channel count given");
  return Status::success();
}

double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

namespace {

// The result's header as the cases so far give it: the backend's clock (a backend may settle it on the first runs) and
// the storage. GL's texture format follows the uploaded channels: one storage where the cases agree, else each with
// its channel counts (rgba32f holds both 3 and 4 channels: it was listed twice); "" where no case uploaded its image.
void settle_header(const Backend& backend, BenchResult& result) {
  result.timer_clock = backend.timer_clock();
  std::vector<std::pair<std::string, std::vector<int>>> storages;  // storage -> channel counts, in the cases' order
  for (const BenchCase& c : result.cases) {
    if (c.storage.empty()) continue;
    auto it = std::find_if(storages.begin(), storages.end(), [&](const auto& s) { return s.first == c.storage; });
    if (it == storages.end()) it = storages.insert(storages.end(), {c.storage, {}});
    if (std::find(it->second.begin(), it->second.end(), c.channels) == it->second.end())
      it->second.push_back(c.channels);
  }
  result.bytes_per_value = !storages.empty() && is_half_storage(storages.front().first) ? 2 : 4;
  result.storage = storages.size() == 1 ? storages.front().first : "";
  for (size_t k = 0; storages.size() > 1 && k < storages.size(); ++k) {
    std::string counts;
    for (int n : storages[k].second) counts += (counts.empty() ? "" : ", ") + std::to_string(n);
    result.storage += (k ? ", " : "") + storages[k].first + " (" + counts +
                      (storages[k].second.size() == 1 && storages[k].second[0] == 1 ? " channel)" : " channels)");
  }
}

}  // namespace

Status check_bench_options(const BenchOptions& opts) {
  if (opts.channels.empty()) return Status::fail("--channels: no channel count given");
  for (int ch : opts.channels)
    if (ch < 1 || ch > 4) return Status::fail("--channels must be 1..4");
  if (opts.repeat < 1) return Status::fail("--repeat must be at least 1");
  if (opts.warmup < 0) return Status::fail("--warmup must be at least 0");
  if (!(opts.warmup_ms >= 0)) return Status::fail("--warmup-ms must be a number of at least 0");  // NaN too
  if (opts.sigmas.empty()) return Status::fail("--sigma: no sigma given");
  // No method takes one (blur refuses it too); with --method all it left every method out, and the bench ran copy.
  for (double sigma : opts.sigmas)
    if (!(sigma > 0)) return Status::fail("--sigma " + number(sigma) + " is not above 0");

  // Extra parameters must belong to at least one method benchmarked (a typo should not pass silently).
  auto spec_of = [](const std::string& entry) {
    std::string name, label;
    std::map<std::string, std::string> variant;
    split_variant(entry, name, variant, label);
    return find_method(name);
  };
  for (const auto& entry : opts.methods)
    if (!spec_of(entry)) return Status::fail("unknown method '" + entry + "'");
  for (const auto& [k, v] : opts.params) {
    bool used = false;
    for (const auto& entry : opts.methods) used = used || find_param(*spec_of(entry), k);
    if (!used) return Status::fail("no benchmarked method has a parameter '" + k + "'");
  }
  return Status::success();
}

Status run_bench(Backend& backend, const BenchOptions& opts, BenchResult& result,
                 const std::function<void(const BenchResult&)>& progress) {
  result = BenchResult{};
  result.backend = backend.name();
  result.device = backend.device_name();
  result.timer_clock = backend.timer_clock();
  if (Status s = check_bench_options(opts); !s) return s;
  auto report = [&] {
    if (!progress) return;
    settle_header(backend, result);
    progress(result);
  };
  // The list of cases: copy first (once per size), then each method x sigma. Resolve every plan up front.
  struct Planned {
    Plan plan;
    double sigma;
    std::string label;  // the method as listed, variant included ("box:impl=sat")
  };
  std::vector<Planned> planned;
  const MethodSpec* copy = bandwidth_floor_method();
  if (!copy) return Status::fail("the registry has no bandwidth-floor method");
  {
    Planned p{{}, opts.sigmas.front(), copy->name};
    if (Status s = resolve_plan(copy->name, params_for(*copy, p.sigma, opts.params), p.plan); !s) return s;
    planned.push_back(std::move(p));
  }
  for (const auto& entry : opts.methods) {
    if (entry == copy->name) continue;
    std::string name, label;
    std::map<std::string, std::string> variant;
    if (Status s = split_variant(entry, name, variant, label); !s) return s;
    std::vector<Planned> mine;
    std::string why;
    for (double sigma : opts.sigmas) {
      Planned p{{}, sigma, label};
      std::map<std::string, std::string> params = params_for(*find_method(name), sigma, opts.params);
      for (const auto& [k, v] : variant) params[k] = v;  // the variant's own settings win
      if (Status s = resolve_plan(name, params, p.plan); !s) {
        why = label + ", sigma " + number(sigma) + ": " + s.error;
        // --method all leaves out a method that cannot take a sigma; one that plans at no sigma (a kernel file that
        // does not exist) is the user's error, as a named method's is (it was left out, exit 0).
        std::map<std::string, std::string> at_one = params_for(*find_method(name), 1.0, opts.params);
        for (const auto& [k, v] : variant) at_one[k] = v;
        Plan probe;
        if (opts.skip_unplannable && !resolve_plan(name, at_one, probe)) return Status::fail(why);
        break;
      }
      // A case's sigma column is --sigma's: where other parameters decide the blur (box --param width=9), said,
      // as blur says it; the JSON's effective_sigma holds what ran.
      warn_sigma_overridden(label, params, p.plan);
      mine.push_back(std::move(p));
    }
    if (!why.empty() && !opts.skip_unplannable) return Status::fail(why);
    if (!why.empty()) {
      spdlog::warn("bench: {} left out: {}", label, why);
      result.left_out.push_back(why);
      continue;
    }
    // A variant that resolves as an earlier one at every sigma (box and box:passes=3, normalize=true and =yes) is the
    // same function: benched once, as a variant written twice is (it ran twice, two rows for one case).
    const auto same_as = std::find_if(planned.begin(), planned.end(), [&](const Planned& q) {
      if (q.label == copy->name || q.plan.method != name) return false;
      for (const Planned& m : mine) {
        const auto at = std::find_if(planned.begin(), planned.end(),
                                     [&](const Planned& r) { return r.label == q.label && r.sigma == m.sigma; });
        if (at == planned.end() || at->plan.params != m.plan.params) return false;
      }
      return true;
    });
    if (same_as != planned.end()) {
      spdlog::warn("bench: {} runs as {} (the same parameters): benched once", label, same_as->label);
      continue;
    }
    for (Planned& p : mine) planned.push_back(std::move(p));
  }
  if (opts.skip_unplannable && !result.left_out.empty() && planned.size() == 1)
    return Status::fail("--method all: every method but copy was left out (the first: " + result.left_out.front() +
                        "): nothing but copy would run");
  report();

  std::mt19937 rng(opts.seed);
  std::uniform_real_distribution<float> uni(0.0f, 1.0f);
  std::vector<std::tuple<int, int, int>> images;  // width, height, channels: each size with each channel count
  for (const auto& [w, h] : opts.sizes)
    for (const int channels : opts.channels) images.emplace_back(w, h, channels);
  for (const auto& [w, h, channels] : images) {
    double upload_ms = 0;
    Status up;
    try {
      Image img(w, h, channels);
      for (float& v : img.data) v = uni(rng);
      up = backend.upload(img, upload_ms);
    } catch (const std::bad_alloc&) {  // every case of this image says so; the other images still run
      up = Status::fail("out of host memory for the image");
    }
    const std::string storage = up ? backend.storage() : "";
    double copy_median = 0;
    for (size_t k = 0; k < planned.size(); ++k) {
      const Planned& p = planned[k];
      BenchCase c;
      c.method = p.label;
      c.width = w, c.height = h, c.channels = channels;
      c.floor = k == 0;  // the plain copy; a listed copy variant (copy:border=wrap) is a case like any other
      c.sigma = c.floor ? 0 : p.sigma;
      c.params = p.plan.params;
      if (c.floor) c.params.erase("sigma");  // the copy runs once an image size, for no sigma (its sigma is 0)
      c.details = p.plan.details;
      c.effective_sigma = p.plan.effective_sigma;
      c.radius = p.plan.radius;
      c.upload_ms = upload_ms;
      if (!up) {
        c.error = "upload of a " + std::to_string(w) + "x" + std::to_string(h) + " image: " + up.error;
      } else {
        RunInfo info;
        // The throttle counters over the warm-up and the timed runs together: NVML's advance in steps that a case's
        // few milliseconds of timed runs alone would not see, and the warm-up runs at the timed runs' clocks.
        double power0 = 0, thermal0 = 0;
        const bool counted = backend.throttle_ms(power0, thermal0);
        const auto wall0 = std::chrono::steady_clock::now();
        if (opts.warmup_ms > 0)
          if (Status s = guarded_run(backend, p.plan, w, h, [&] { return backend.warm_up(p.plan, opts.warmup_ms); });
              !s)
            c.error = s.error;
        std::vector<double> times;
        for (int attempt = 0; c.error.empty(); ++attempt) {
          if (Status s = guarded_run(backend, p.plan, w, h,
                                     [&] { return backend.run_repeated(p.plan, opts.warmup + opts.repeat, times, info); });
              !s) {
            c.error = s.error;
          } else if (int(times.size()) != opts.warmup + opts.repeat) {
            c.error = "backend returned " + std::to_string(times.size()) + " times for " +
                      std::to_string(opts.warmup + opts.repeat) + " runs";
          } else {
            c.times_ms.assign(times.begin() + opts.warmup, times.end());
            const double med = median_of(c.times_ms);
            const auto [lo, hi] = std::minmax_element(c.times_ms.begin(), c.times_ms.end());
            const double fastest = *lo, slowest = *hi;
            if (attempt == kRetimeAtMost || !(fastest < 0.5 * med || slowest > kRetimeSpread * fastest)) break;
            spdlog::info("bench {} {}x{}x{} sigma {}: runs took {:.4f} to {:.4f} ms against the median {:.4f}: timing "
                         "them again (the device's clock rising?)",
                         c.method, w, h, c.channels, c.sigma, fastest, slowest, med);
            ++c.retimed;
          }
        }
        c.path = info.path;
        c.busy_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - wall0).count();
        double power1 = 0, thermal1 = 0;
        if (counted && backend.throttle_ms(power1, thermal1))
          c.throttled_power_ms = power1 - power0, c.throttled_thermal_ms = thermal1 - thermal0;
      }
      if (c.error.empty()) {
        c.median_ms = median_of(c.times_ms);
        c.min_ms = *std::min_element(c.times_ms.begin(), c.times_ms.end());
        // The bytes of the storage the backend moves: half floats (GL rgba16f) are 2 a value, and GL keeps three
        // channels as four.
        const double bytes =
            2.0 * double(w) * h * storage_values(storage, channels) * (is_half_storage(storage) ? 2 : 4);
        c.gbps = c.median_ms > 0 ? bytes / (c.median_ms * 1e-3) / 1e9 : 0;
        if (c.floor) copy_median = c.median_ms;
        c.ratio_to_copy = copy_median > 0 ? c.median_ms / copy_median : 0;
        spdlog::debug("bench {} {}x{}x{} sigma {}: median {:.4f} ms", c.method, w, h, c.channels, c.sigma,
                      c.median_ms);
      } else {
        spdlog::error("bench {} {}x{}x{} sigma {}: {}", c.method, w, h, c.channels, c.sigma, c.error);
      }
      c.storage = storage;
      result.cases.push_back(std::move(c));
      report();
    }
  }
  settle_header(backend, result);
  return Status::success();
}

const char* throttled_note(const BenchCase& c) {
  if (!c.error.empty() || c.throttled_power_ms < 0 || c.busy_ms <= 0) return nullptr;
  const bool power = c.throttled_power_ms >= kThrottledShare * c.busy_ms;
  const bool thermal = c.throttled_thermal_ms >= kThrottledShare * c.busy_ms;
  if (power && thermal) return "power limit and temperature";
  return power ? "power limit" : thermal ? "temperature" : nullptr;
}

std::string bench_table(const BenchResult& r) {
  std::ostringstream o;
  o << "backend " << r.backend << ", device " << r.device << ", clock " << r.timer_clock << ", storage " << r.storage
    << "\n";
  // The method column as wide as its longest label (a variant's settings can be long), at least 22.
  size_t mw = 22;
  for (const auto& c : r.cases) mw = std::max(mw, c.method.size());
  o << fmt::format("{:<{}} {:>11} {:>2} {:>7} {:>6} {:>11} {:>11} {:>9} {:>8}  {}\n", "method", mw, "size", "c",
                   "sigma", "radius", "median_ms", "min_ms", "GB/s", "x copy", "path");
  for (const auto& c : r.cases) {
    const std::string size = std::to_string(c.width) + "x" + std::to_string(c.height);
    const std::string sigma = c.floor ? "-" : number(c.sigma);
    o << fmt::format("{:<{}} {:>11} {:>2} {:>7} {:>6}", c.method, mw, size, c.channels, sigma, c.radius);
    if (!c.error.empty())
      o << "  error: " << c.error << "\n";
    else
      o << fmt::format(" {:>11.4f} {:>11.4f} {:>9.2f} {:>8.2f}  {}\n", c.median_ms, c.min_ms, c.gbps, c.ratio_to_copy,
                       c.path);
  }
  for (const auto& c : r.cases)
    if (const char* why = throttled_note(c)) {
      char note[512];
      std::snprintf(note, sizeof note, "note: %s %dx%dx%d sigma %s: the device was held below its clocks (%s) for %.1f "
                    "ms by power and %.1f ms by temperature of the %.1f ms this case kept it busy; its times are the "
                    "throttled device's\n", c.method.c_str(), c.width, c.height, c.channels,
                    c.floor ? "-" : number(c.sigma).c_str(), why, std::min(c.throttled_power_ms, c.busy_ms),
                    std::min(c.throttled_thermal_ms, c.busy_ms), c.busy_ms);  // (the counters advance in steps)
      o << note;
    }
  return o.str();
}

nlohmann::json bench_json(const BenchResult& r, const BenchOptions& opts) {
  using nlohmann::json;
  json cases = json::array();
  for (const auto& c : r.cases) {
    json params = json::object();
    for (const auto& [k, v] : c.params) params[k] = v;
    json j{{"method", c.method},
           {"width", c.width},
           {"height", c.height},
           {"channels", c.channels},
           {"storage", c.storage},
           {"sigma", c.sigma},
           {"radius", c.radius},
           {"effective_sigma", c.effective_sigma},
           {"params", params},
           {"details", json(c.details)},  // (an object, {} where empty)
           {"path", c.path},
           {"upload_ms", c.upload_ms},
           {"times_ms", c.times_ms},
           {"retimed", c.retimed},
           {"busy_ms", c.busy_ms},
           {"median_ms", c.median_ms},
           {"min_ms", c.min_ms},
           {"gbps", c.gbps},
           {"ratio_to_copy", c.ratio_to_copy},
           {"status", c.error.empty() ? "ok" : "error"},
           {"error", c.error}};
    if (!c.error.empty())
      for (const char* k : {"median_ms", "min_ms", "gbps", "ratio_to_copy"}) j[k] = nullptr;
    else if (!(c.ratio_to_copy > 0))
      j["ratio_to_copy"] = nullptr;  // its size's copy failed: nothing to divide by
    if (c.throttled_power_ms >= 0)
      j["throttled_ms"] = {{"power", c.throttled_power_ms}, {"thermal", c.throttled_thermal_ms}};
    cases.push_back(std::move(j));
  }
  json sizes = json::array();
  for (const auto& [w, h] : opts.sizes) sizes.push_back({w, h});
  json doc{{"schema_version", 1},
           {"tool", {{"name", "gpublur"}, {"version", GPUBLUR_VERSION}, {"command", "bench"}}},
           {"backend",
            {{"name", r.backend}, {"device", r.device}, {"timer_clock", r.timer_clock}, {"storage", r.storage}}},
           {"settings",
            {{"methods", opts.methods},
             {"sigmas", opts.sigmas},
             {"sizes", sizes},
             {"channels", opts.channels},
             {"repeat", opts.repeat},
             {"warmup", opts.warmup},
             {"warmup_ms", opts.warmup_ms},
             {"seed", opts.seed},
             {"bytes_per_value", r.bytes_per_value},
             {"gbps_definition",
              "2 * width * height * stored values a pixel (channels; 4 for 3 on gl) * bytes_per_value / "
              "median_ms"}}},
           {"cases", cases},
           {"left_out", r.left_out},
           {"summary", r.interrupted ? json{{"cases", r.cases.size()}, {"failed", r.failed()}, {"interrupted", true}}
                                     : json{{"cases", r.cases.size()}, {"failed", r.failed()}}}};
  if (!r.warnings.empty()) doc["warnings"] = r.warnings;  // present where there are any, as quality's
  return doc;
}

}  // namespace gpublur
