// The registry, plan resolution and the Gaussian math written once in core/.
#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <utility>

#include "core/gauss.hpp"
#include "core/plan.hpp"
#include "core/registry.hpp"

namespace gpublur {
namespace {

TEST(Registry, EveryMethodDeclaresCommonParamsAndBackends) {
  std::set<std::string> names;
  for (const MethodSpec& m : method_registry()) {
    EXPECT_TRUE(names.insert(m.name).second) << "duplicate " << m.name;
    EXPECT_FALSE(m.summary.empty()) << m.name;
    EXPECT_TRUE(method_on_backend(m, "cpu")) << m.name << ": every method has a CPU reference";
    for (const char* p : {"sigma", "border"}) EXPECT_NE(find_param(m, p), nullptr) << m.name << " " << p;
    // A sampled, truncated Gaussian has a settable radius.
    if (m.exact_gaussian) EXPECT_NE(find_param(m, "radius"), nullptr) << m.name;
  }
  for (const char* n : {"copy", "gauss-2d", "gauss-sep", "gauss-linear", "box"}) EXPECT_TRUE(names.count(n)) << n;
  ASSERT_NE(bandwidth_floor_method(), nullptr);
  EXPECT_EQ(bandwidth_floor_method()->name, "copy");
}

TEST(Registry, JsonListsTheSameMethodsAndParams) {
  const auto j = nlohmann::json::parse(registry_json());
  ASSERT_EQ(j.size(), method_registry().size());
  for (size_t i = 0; i < j.size(); ++i) {
    const MethodSpec& m = method_registry()[i];
    EXPECT_EQ(j[i]["name"], m.name);
    ASSERT_EQ(j[i]["params"].size(), m.params.size());
    for (size_t k = 0; k < m.params.size(); ++k) EXPECT_EQ(j[i]["params"][k]["name"], m.params[k].name);
  }
  EXPECT_NE(registry_text().find("gauss-linear"), std::string::npos);
}

// --downsample's default: 1 for every method but kawase, which picks its working resolution from sigma
// (Recipe::auto_downsample; tests/core/test_kawase.cpp checks the rule). Elsewhere the default plan is the one
// --downsample 1 gives, with no resampling of its own.
TEST(Registry, DownsampleDefaultsToOneButForKawase) {
  const auto j = nlohmann::json::parse(registry_json());
  for (size_t i = 0; i < method_registry().size(); ++i) {
    const MethodSpec& m = method_registry()[i];
    const ParamSpec* d = find_param(m, "downsample");
    if (!d) {
      EXPECT_TRUE(m.bandwidth_floor) << m.name;
      continue;
    }
    nlohmann::json pj;
    for (const auto& x : j[i]["params"])
      if (x["name"] == "downsample") pj = x;
    if (m.name == "kawase") {
      EXPECT_TRUE(d->derived);
      EXPECT_TRUE(pj["default"].is_null());
      EXPECT_EQ(pj["default_from"], "sigma");
      EXPECT_NE(d->help.find("by default the largest F"), std::string::npos) << d->help;
      continue;
    }
    EXPECT_FALSE(d->derived) << m.name;
    EXPECT_EQ(d->default_value, "1") << m.name;
    EXPECT_EQ(pj["default"], 1) << m.name;  // a number, as its choices are
    EXPECT_NE(std::find(pj["choices"].begin(), pj["choices"].end(), pj["default"]), pj["choices"].end()) << m.name;
    bool needs_file = false;
    for (const ParamSpec& q : m.params) needs_file = needs_file || q.required();
    if (needs_file) continue;
    Plan a, b;
    ASSERT_TRUE(resolve_plan(m.name, {{"sigma", "24"}}, a).ok()) << m.name;
    ASSERT_TRUE(resolve_plan(m.name, {{"sigma", "24"}, {"downsample", "1"}}, b).ok()) << m.name;
    EXPECT_EQ(a.param("downsample"), "1") << m.name;
    EXPECT_EQ(a.details.count("downsample"), 0u) << m.name;
    EXPECT_EQ(a.details.at("program"), b.details.at("program")) << m.name;
    EXPECT_EQ(a.effective_sigma, b.effective_sigma) << m.name;
  }
}

TEST(Plan, DefaultsAndDerivedRadius) {
  Plan p;
  ASSERT_TRUE(resolve_plan("gauss-sep", {{"sigma", "2.5"}}, p).ok());
  EXPECT_EQ(p.radius, 8);  // ceil(7.5)
  EXPECT_EQ(p.border, Border::Clamp);
  EXPECT_EQ(p.param("impl"), "compute");
  // The program: conv1d along x into an intermediate, then along y into the output, 17 normalised taps.
  ASSERT_EQ(p.program.passes.size(), 2u);
  const Pass &h = p.program.passes[0], &v = p.program.passes[1];
  EXPECT_EQ(h.op, Op::Conv1d);
  EXPECT_EQ(h.axis, 0);
  EXPECT_EQ(v.axis, 1);
  EXPECT_EQ(h.src, 0);
  EXPECT_EQ(h.dst, v.src);
  EXPECT_EQ(v.dst, 1);
  EXPECT_TRUE(separable_pair(p.program, 0));
  ASSERT_EQ(h.taps.size(), 17u);
  double sum = 0;
  for (float w : h.taps) sum += w;
  EXPECT_NEAR(sum, 1.0, 1e-6);
  EXPECT_NEAR(p.effective_sigma, 2.5, 0.05);  // truncation at 3 sigma narrows it slightly
  EXPECT_LT(p.effective_sigma, 2.5);
}

// What backends may fuse: the same op and settings along x then y through an intermediate only the second pass
// reads. Each change below breaks the pattern (fusing it would change the result or drop an image).
TEST(Plan, XyPairRules) {
  Plan p;
  ASSERT_TRUE(resolve_plan("box", {{"sigma", "4"}, {"passes", "3"}}, p).ok());
  ASSERT_TRUE(box_pair(p.program, 0));
  EXPECT_TRUE(xy_pair(p.program, 0));
  EXPECT_FALSE(separable_pair(p.program, 0));
  EXPECT_FALSE(xy_pair(p.program, 1));  // the last pass has no successor
  auto broken = [&](auto change) {
    Program q = p.program;
    change(q);
    return !xy_pair(q, 0) && !box_pair(q, 0);
  };
  EXPECT_TRUE(broken([](Program& q) { q.passes[1].widths.back() += 2; }));
  EXPECT_TRUE(broken([](Program& q) { q.passes[1].border = Border::Wrap; }));
  EXPECT_TRUE(broken([](Program& q) { q.passes[1].op = Op::MovingAverage; }));
  EXPECT_TRUE(broken([](Program& q) { std::swap(q.passes[0].axis, q.passes[1].axis); }));
  EXPECT_TRUE(broken([](Program& q) { q.images[size_t(q.passes[0].dst)].pad = 1; }));
  EXPECT_TRUE(broken([](Program& q) { q.images[size_t(q.passes[0].dst)].f64 = true; }));
  EXPECT_TRUE(broken([](Program& q) {  // a third pass also reads the intermediate
    Pass extra = q.passes[1];
    extra.dst = q.add_image({});
    q.passes.push_back(extra);
  }));
  ASSERT_TRUE(resolve_plan("gauss-linear", {{"sigma", "3"}, {"interp", "hardware"}}, p).ok());
  EXPECT_TRUE(bilinear_pair(p.program, 0));
  EXPECT_FALSE(box_pair(p.program, 0));
}

TEST(Plan, SatPairIsSpreadsTwoTables) {
  Plan p;
  ASSERT_TRUE(resolve_plan("spread", {{"sigma", "5"}}, p).ok());
  ASSERT_EQ(p.program.passes.size(), 4u);  // spread, sat, sat, scale
  EXPECT_FALSE(sat_pair(p.program, 0));
  EXPECT_TRUE(sat_pair(p.program, 1));
  EXPECT_FALSE(sat_pair(p.program, 2));
  auto broken = [&](auto change) {
    Program q = p.program;
    change(q);
    return !sat_pair(q, 1);
  };
  EXPECT_TRUE(broken([](Program& q) { q.images[size_t(q.passes[1].dst)].pad = 2; }));
  EXPECT_TRUE(broken([](Program& q) { q.passes[2].dst = q.passes[1].dst; }));
  EXPECT_TRUE(broken([](Program& q) {  // a later pass also reads the first table
    Pass extra = q.passes[3];
    extra.src = q.passes[1].dst;
    extra.dst = q.add_image({});
    q.passes.push_back(extra);
  }));
  ASSERT_TRUE(resolve_plan("box", {{"sigma", "4"}, {"impl", "sat"}}, p).ok());
  for (size_t i = 0; i < p.program.passes.size(); ++i) EXPECT_FALSE(sat_pair(p.program, i));  // one table
}

TEST(Plan, ValidationErrorsNameTheParameter) {
  Plan p;
  Status s = resolve_plan("gauss-sep", {{"sigma", "0"}}, p);
  EXPECT_NE(s.error.find("--sigma"), std::string::npos) << s.error;
  s = resolve_plan("gauss-sep", {{"sigma", "abc"}}, p);
  EXPECT_NE(s.error.find("not a number"), std::string::npos) << s.error;
  s = resolve_plan("gauss-sep", {{"radius", "2.5"}}, p);
  EXPECT_NE(s.error.find("integer"), std::string::npos) << s.error;
  s = resolve_plan("gauss-sep", {{"border", "reflect"}}, p);
  EXPECT_NE(s.error.find("clamp, mirror, wrap, zero"), std::string::npos) << s.error;
  s = resolve_plan("gauss-2d", {{"interp", "exact"}}, p);
  EXPECT_NE(s.error.find("no parameter 'interp'"), std::string::npos) << s.error;
  s = resolve_plan("blurry", {}, p);
  EXPECT_NE(s.error.find("unknown method"), std::string::npos) << s.error;
  // Decimal numbers only (strtod took "0x10" as 16), spaces around them allowed.
  s = resolve_plan("gauss-sep", {{"sigma", "0x10"}}, p);
  EXPECT_NE(s.error.find("not a number"), std::string::npos) << s.error;
  EXPECT_TRUE(resolve_plan("gauss-sep", {{"sigma", " 2.5e0 "}}, p).ok());
  EXPECT_EQ(p.sigma, 2.5);
  // So are a choice's and a flag's (`--param 'impl= sat'` was refused where `passes= 3` ran).
  ASSERT_TRUE(resolve_plan("box", {{"impl", " sat "}, {"border", " wrap"}}, p).ok());
  EXPECT_EQ(p.param("impl"), "sat");
  EXPECT_EQ(p.border, Border::Wrap);
  // An integer of a few values: the registry lists them (methods --json "choices"), resolve_plan holds to them.
  s = resolve_plan("box", {{"downsample", "3"}}, p);
  EXPECT_NE(s.error.find("--downsample 3 is not one of: 1, 2, 4, 8"), std::string::npos) << s.error;
  EXPECT_TRUE(resolve_plan("box", {{"sigma", "12"}, {"downsample", "4"}}, p).ok());
  const nlohmann::json j = nlohmann::json::parse(registry_json());
  for (const auto& m : j)
    for (const auto& param : m["params"])
      if (param["name"] == "downsample") EXPECT_EQ(param["choices"], nlohmann::json::array({1, 2, 4, 8})) << m["name"];
}

// Direct 2D windows warn where their (2r+1)^2 reads pass kDirect2dWarnTaps, and only there; the report keeps the
// warning in details (resolve_plan also logs it).
TEST(Plan, DirectTwoDimensionalCostWarnsAboveItsBound) {
  const struct {
    const char* method;
    std::map<std::string, std::string> extra;
  } cases[] = {{"gauss-2d", {}}, {"reshuffle", {}}, {"bilateral", {{"impl", "brute"}}}};
  for (const auto& c : cases) {
    std::map<std::string, std::string> given = c.extra;
    Plan p;
    given["radius"] = "158";  // 317^2 = 100489 reads
    ASSERT_TRUE(resolve_plan(c.method, given, p)) << c.method;
    ASSERT_TRUE(p.details.count("warning")) << c.method;
    EXPECT_NE(p.details["warning"].find("317^2 = 100489"), std::string::npos) << p.details["warning"];
    EXPECT_TRUE(plan_warns_of_cost(p)) << c.method;  // quality skips its impulse response
    Plan q;
    given["radius"] = "157";  // 315^2 = 99225
    ASSERT_TRUE(resolve_plan(c.method, given, q)) << c.method;
    EXPECT_FALSE(q.details.count("warning")) << c.method << ": " << q.details["warning"];
  }
  Plan sep;
  ASSERT_TRUE(resolve_plan("bilateral", {{"radius", "400"}, {"impl", "separable"}}, sep));
  EXPECT_FALSE(sep.details.count("warning")) << "the separable form reads 2 (2r+1)";
  Plan big;  // from sigma: radius ceil(3 sigma) = 159
  ASSERT_TRUE(resolve_plan("gauss-2d", {{"sigma", "53"}}, big));
  EXPECT_NE(big.details["warning"].find("gauss-sep"), std::string::npos) << big.details["warning"];
  // box's direct 2D impl: each pass reads its widest box's w^2 (317 = a radius of 158); the other impls do not warn.
  for (const char* impl : {"2d", "separable", "sat", "moving-average"}) {
    Plan b;
    ASSERT_TRUE(resolve_plan("box", {{"width", "317"}, {"passes", "2"}, {"impl", impl}}, b)) << impl;
    EXPECT_EQ(b.details.count("warning"), std::string(impl) == "2d" ? 1u : 0u) << impl;
    if (std::string(impl) == "2d")
      EXPECT_NE(b.details["warning"].find("317^2 = 100489"), std::string::npos) << b.details["warning"];
    ASSERT_TRUE(resolve_plan("box", {{"width", "315"}, {"impl", impl}}, b)) << impl;
    EXPECT_FALSE(b.details.count("warning")) << impl << ": " << b.details["warning"];
  }
}

TEST(Gauss, LinearTapsReproduceTheDiscreteKernel) {
  for (double sigma : {0.5, 1.0, 3.0, 7.3, 48.0})
    for (int radius : {1, 2, 5, default_radius(sigma)}) {
      const auto w = gaussian_weights(sigma, radius);
      const LinearTaps t = linear_taps(w);
      EXPECT_EQ(t.offsets.size(), size_t(1 + (radius + 1) / 2));
      // Spread every tap back onto integer texels: must give the discrete kernel exactly.
      std::vector<double> back(w.size(), 0.0);
      back[size_t(radius)] += t.weights[0];
      for (size_t k = 1; k < t.offsets.size(); ++k) {
        const int i0 = int(std::floor(t.offsets[k]));
        const double f = t.offsets[k] - i0;
        for (int s : {-1, 1}) {
          // +o covers texels i0, i0+1; -o covers -i0, -i0-1 (same weights mirrored)
          back[size_t(radius + s * i0)] += t.weights[k] * (1 - f);
          if (f > 0) back[size_t(radius + s * (i0 + 1))] += t.weights[k] * f;
        }
      }
      for (size_t i = 0; i < w.size(); ++i) EXPECT_NEAR(back[i], w[i], 1e-15) << sigma << " " << radius << " " << i;
    }
  // Tails that underflow to 0 in float64 (exp(-800)): finite offsets, within the radius.
  const LinearTaps t = linear_taps(gaussian_weights(2.0, 80));
  for (size_t k = 0; k < t.offsets.size(); ++k) {
    EXPECT_TRUE(std::isfinite(t.offsets[k])) << k;
    EXPECT_LE(t.offsets[k], 80.0) << k;
  }
}

// The exact gauss-linear kernel (what the reference and the GPU exact paths run) from a Plan's float taps:
// the discrete kernel again, up to the float rounding of the tap offsets.
TEST(Gauss, LinearExactKernelIsTheDiscreteKernel) {
  for (double sigma : {0.5, 3.0, 7.3, 48.0, 2.0}) {
    // sigma 2 at radius 80: its tails underflow to 0 (was std::bad_alloc in the reference).
    const std::string radius = sigma == 2.0 ? "80" : std::to_string(default_radius(sigma));
    Plan hw, ex;
    ASSERT_TRUE(resolve_plan("gauss-linear", {{"sigma", std::to_string(sigma)}, {"radius", radius}}, hw).ok());
    ASSERT_TRUE(
        resolve_plan("gauss-linear", {{"sigma", std::to_string(sigma)}, {"radius", radius}, {"interp", "exact"}}, ex)
            .ok());
    const Pass& taps = hw.program.passes[0];
    ASSERT_EQ(taps.op, Op::Bilinear1d);
    int reach = -1;
    const std::vector<double> k = linear_exact_kernel(taps.offsets, taps.taps, reach);
    ASSERT_EQ(reach, hw.radius) << sigma;
    // The exact form's program is that kernel as a conv1d; both stand for the discrete Gaussian.
    const Pass& conv = ex.program.passes[0];
    ASSERT_EQ(conv.op, Op::Conv1d);
    ASSERT_EQ(k.size(), conv.taps.size());
    const std::vector<double> g = gaussian_weights(sigma, hw.radius);
    for (size_t i = 0; i < k.size(); ++i) {
      EXPECT_NEAR(k[i], conv.taps[i], 1e-7) << sigma << " " << i;
      EXPECT_NEAR(k[i], g[i], 1e-7) << sigma << " " << i;
    }
  }
}

TEST(Gauss, WeightsAreNormalisedSymmetricGaussians) {
  const auto w = gaussian_weights(4.0, 12);
  double sum = 0;
  for (double v : w) sum += v;
  EXPECT_NEAR(sum, 1.0, 1e-14);
  for (int k = 0; k <= 12; ++k) EXPECT_DOUBLE_EQ(w[size_t(12 + k)], w[size_t(12 - k)]);
  EXPECT_NEAR(w[12 + 4] / w[12], std::exp(-0.5), 1e-14);
  EXPECT_EQ(default_radius(0.5), 2);
  EXPECT_EQ(default_radius(48), 144);
}

}  // namespace
}  // namespace gpublur

namespace gpublur {
namespace {

// The warnings resolve_plan, then (`user`) warn_sigma_overridden, log for `given`.
std::string plan_warnings(const std::string& method, const std::map<std::string, std::string>& given,
                          bool user = true) {
  std::ostringstream log;
  auto previous = spdlog::default_logger();
  spdlog::set_default_logger(
      std::make_shared<spdlog::logger>("capture", std::make_shared<spdlog::sinks::ostream_sink_st>(log)));
  Plan p;
  const Status s = resolve_plan(method, given, p);
  if (s && user) warn_sigma_overridden(method, given, p);
  spdlog::set_default_logger(previous);
  EXPECT_TRUE(s.ok()) << s.error;
  return log.str();
}

// A --sigma that other parameters override is said, naming them (box --width 5 --sigma 10 ran at 2.45 in silence);
// none where the method runs about the sigma asked for.
TEST(Registry, SigmaOverriddenByOtherParametersIsSaid) {
  const std::string w = plan_warnings("box", {{"sigma", "10"}, {"width", "5"}});
  EXPECT_NE(w.find("box: --sigma 10 is not the blur that runs: its effective sigma is 2.449 (given with --width 5)"),
            std::string::npos)
      << w;
  EXPECT_NE(plan_warnings("diffusion", {{"sigma", "5"}, {"iterations", "10"}, {"rate", "0.1"}}).find("1.414"),
            std::string::npos);
  EXPECT_EQ(plan_warnings("box", {{"sigma", "10"}}), "");
  EXPECT_EQ(plan_warnings("box", {{"width", "5"}}), "");  // no --sigma given: nothing asked for
  EXPECT_EQ(plan_warnings("gauss-sep", {{"sigma", "3"}}), "");
  // resolve_plan itself says nothing of it: quality's reference Gaussians (sigma 0.1 in its search) printed it on
  // every run of `gpublur quality`.
  EXPECT_NE(plan_warnings("gauss-sep", {{"sigma", "0.1"}}), "");
  EXPECT_EQ(plan_warnings("gauss-sep", {{"sigma", "0.1"}}, false), "");
  EXPECT_EQ(plan_warnings("box", {{"sigma", "10"}, {"width", "5"}}, false), "");
  // An identity runs no blur at all (effective sigma 0): said too (it was left out as "no effective sigma"); a
  // kernel that is not a blur has none to compare, and copy ignores sigma.
  EXPECT_NE(plan_warnings("box", {{"sigma", "5"}, {"width", "1"}}).find("its effective sigma is 0"), std::string::npos);
  EXPECT_NE(plan_warnings("spread", {{"sigma", "5"}, {"radius", "1"}}).find("its effective sigma is 0"),
            std::string::npos);
  EXPECT_EQ(plan_warnings("copy", {{"sigma", "5"}}), "");
  // The plan's details keep it, as they keep a recipe's warnings, for the reports (it was only logged); a cost warning
  // already there keeps its kind.
  Plan p;
  ASSERT_TRUE(resolve_plan("box", {{"sigma", "10"}, {"width", "5"}}, p).ok());
  warn_sigma_overridden("box", {{"sigma", "10"}, {"width", "5"}}, p);
  EXPECT_EQ(p.details.at("warning"),
            "box: --sigma 10 is not the blur that runs: its effective sigma is 2.449 (given with --width 5)");
  EXPECT_EQ(p.details.at("warning_kind"), "unused");
  const std::map<std::string, std::string> slow = {{"sigma", "1"}, {"iterations", "100000"}, {"rate", "0.25"}};
  ASSERT_TRUE(resolve_plan("diffusion", slow, p).ok());
  warn_sigma_overridden("diffusion", slow, p);
  EXPECT_NE(p.details.at("warning").find("; diffusion: --sigma 1 is not the blur that runs"), std::string::npos)
      << p.details.at("warning");
  EXPECT_EQ(p.details.at("warning_kind"), "cost");
}

}  // namespace
}  // namespace gpublur
