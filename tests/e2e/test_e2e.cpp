// End-to-end tests of the gpublur binary: folders with good and bad files, exit codes, outputs that decode,
// no temporary or partial files, the report against docs/report.schema.json, usage errors, stdin lists,
// --recursive, report formats, overwrite policy, interruption, bench, and a CUDA request without a device.
#include "tests/test_paths.hpp"
#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <limits>
#include <map>
#include <random>
#include <regex>
#include <sstream>
#include <sys/resource.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "core/color.hpp"
#include "core/io/image_io.hpp"
#include "core/plan.hpp"
#include "core/reference/reference.hpp"
#include "tests/core/nonfinite_footprint.hpp"
#include "tests/e2e/e2e_fixture.hpp"
#include "tests/e2e/run_binary.hpp"
#include "tests/e2e/schema_check.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace gpublur {
namespace {

using Result = gpublur::testing::RunResult;
using gpublur::testing::quote;
using gpublur::testing::slurp;

using namespace gpublur::e2e;  // the fixture (e2e_fixture.hpp)

TEST_F(E2E, GoodAndBadFilesInOneFolder) {
  make_image("in/rgba8.png", 41, 29, 4, PixelType::UInt8, 1);
  make_image("in/gray16.png", 33, 17, 1, PixelType::UInt16, 2);
  make_image("in/half.exr", 40, 30, 4, PixelType::Half, 3);
  make_image("in/wide.exr", 21, 13, 6, PixelType::Float, 4);
  make_bad_files("in");
  std::ofstream(at("in/readme.txt")) << "not an image";

  const Result r = run("blur " + quote(at("in").string()) + " -o " + quote(at("out").string()) +
                       " --backend cpu --sigma 1.5 --report " + quote(at("report.json").string()));
  EXPECT_EQ(r.rc, 1) << r.err;

  // Good files: written, decodable, same shape and pixel type.
  const std::map<std::string, std::tuple<int, int, int, PixelType>> good = {
      {"rgba8.png", {41, 29, 4, PixelType::UInt8}},
      {"gray16.png", {33, 17, 1, PixelType::UInt16}},
      {"half.exr", {40, 30, 4, PixelType::Half}},
      {"wide.exr", {21, 13, 6, PixelType::Float}}};
  for (const auto& [name, shape] : good) {
    ASSERT_TRUE(fs::exists(at("out/" + name))) << name;
    const LoadedImage li = decode(at("out/" + name));
    EXPECT_EQ(li.image.width, std::get<0>(shape)) << name;
    EXPECT_EQ(li.image.height, std::get<1>(shape)) << name;
    EXPECT_EQ(li.image.channels, std::get<2>(shape)) << name;
    EXPECT_EQ(li.meta.pixel_type, std::get<3>(shape)) << name;
    EXPECT_NE(li.image.data, decode(at("in/" + name)).image.data) << name << " was not blurred";
  }
  // Bad files: named in the log, no output, nothing partial or temporary anywhere.
  for (const char* bad : {"zero.png", "truncated.exr", "mislabelled.exr"}) {
    EXPECT_NE(r.err.find(bad), std::string::npos) << bad << " not named in:\n" << r.err;
    EXPECT_FALSE(fs::exists(at(std::string("out/") + bad))) << bad;
  }
  EXPECT_FALSE(fs::exists(at("out/readme.txt")));
  EXPECT_TRUE(leftovers(at("out")).empty()) << leftovers(at("out")).front();
  size_t n = 0;
  for (auto it = fs::directory_iterator(at("out")); it != fs::directory_iterator(); ++it) ++n;
  EXPECT_EQ(n, good.size());

  // The report: valid against the schema, one entry per image with the right status.
  const json rep = json::parse(slurp(at("report.json")));
  const auto errors = testing::schema_errors(load_schema(), rep);
  EXPECT_TRUE(errors.empty()) << errors.front();
  ASSERT_EQ(rep["images"].size(), 7u);
  EXPECT_EQ(rep["summary"]["images"], 7);
  EXPECT_EQ(rep["summary"]["failed"], 3);
  EXPECT_EQ(rep["backend"]["name"], "cpu");
  EXPECT_EQ(rep["method"]["name"], "gauss-sep");
  EXPECT_EQ(rep["method"]["params"]["sigma"], "1.5");
  EXPECT_EQ(rep["method"]["radius"], 5);
  // A file that fails to decode was still read for a time, and the report says so (it said 0).
  for (const json& img : rep["images"])
    if (img["input"].get<std::string>().find("truncated.exr") != std::string::npos)
      EXPECT_GT(img["timings_ms"]["read"].get<double>(), 0) << img.dump();
  // Start-up: the process before main() (a fresh process: well under a minute) and the backend's creation.
  const json& startup = rep["summary"]["startup_ms"];
  ASSERT_TRUE(startup.contains("before_main") && startup.contains("backend_init")) << startup.dump();
  EXPECT_GE(startup["before_main"].get<double>(), 0);
  EXPECT_LT(startup["before_main"].get<double>(), 60000);
  EXPECT_GE(startup["backend_init"].get<double>(), 0);
  EXPECT_LT(startup["backend_init"].get<double>(), rep["summary"]["wall_ms"].get<double>() + 60000);
  for (const auto& img : rep["images"]) {
    const std::string name = fs::path(img["input"].get<std::string>()).filename();
    if (good.count(name)) {
      EXPECT_EQ(img["status"], "ok") << name;
      EXPECT_EQ(img["error"], "") << name;
      EXPECT_GT(img["timings_ms"]["total"].get<double>(), 0) << name;
      EXPECT_EQ(img["width"], std::get<0>(good.at(name)));
    } else {
      EXPECT_EQ(img["status"], "error") << name;
      EXPECT_NE(img["error"].get<std::string>().find(name), std::string::npos) << img["error"];
    }
  }
}

TEST_F(E2E, AllGoodExitsZeroAndPngKeepsAlpha) {
  make_image("a.png", 16, 12, 2, PixelType::UInt8, 7);
  const Result r = run("blur " + quote(at("a.png").string()) + " -o " + quote(at("o").string()) + " -b cpu");
  EXPECT_EQ(r.rc, 0) << r.err;
  const LoadedImage li = decode(at("o/a.png"));
  EXPECT_EQ(li.image.channels, 2);
  EXPECT_EQ(li.meta.alpha_channel, 1);
}

// --param takes one name=value an occurrence (repeatable): the inputs after it are inputs. As a list option it took
// them ("inputs is required", exit 2), in blur, bench and quality alike.
TEST_F(E2E, ParamTakesOneValueAnOccurrence) {
  make_image("a.png", 16, 12, 3, PixelType::UInt8, 8);
  const std::string in = quote(at("a.png").string());
  Result r = run("blur -b cpu --method box --param passes=2 --param width=5 " + in + " -o " + quote(at("o").string()) +
                 " --report " + quote(at("r.json").string()));
  ASSERT_EQ(r.rc, 0) << r.err;
  const json rep = json::parse(slurp(at("r.json")));
  EXPECT_EQ(rep["method"]["params"]["width"], "5,5") << rep["method"].dump();
  r = run("quality -b cpu --method box --sigma 2 --param passes=2 " + in);
  EXPECT_EQ(r.rc, 0) << r.err;
}

// --device lists and all are for blur -b cuda (one backend per GPU); anything else is a usage error, and the
// other commands take one ordinal.
TEST_F(E2E, DeviceListsAreForBlurOnCuda) {
  make_image("in/a.png", 8, 8, 3, PixelType::UInt8, 5);
  const std::string base = "blur " + quote(at("in/a.png").string()) + " -o " + quote(at("out").string());
  struct Case {
    std::string args, expect;
    int rc;
  };
  const std::vector<Case> cases = {{base + " -b cpu --device 0,1", "need -b cuda", 2},
                                   {base + " -b cuda --device 0,0", "listed twice", 2},
                                   {base + " -b cuda --device x", "not an ordinal", 2},
                                   {base + " -b cpu --device all", "(one backend per GPU) needs -b cuda", 2},
                                   {base + " -b auto --device all", "needs -b cuda", 2},
                                   {"bench -b cpu --device all --size 8", "takes one device ordinal", 2},
                                   {"bench -b cpu --device 0,1 --size 8", "takes one device ordinal", 2},
                                   {"quality -b cpu -m box --size 16 --device all", "takes one device ordinal", 2}};
  for (const auto& c : cases) {
    const Result r = run(c.args);
    EXPECT_EQ(r.rc, c.rc) << c.args << "\n" << r.err;
    EXPECT_NE(r.err.find(c.expect), std::string::npos) << c.args << "\n" << r.err;
  }
  // Options the backend in use has no use for are warned about, and the run goes on.
  const std::vector<std::pair<std::string, std::string>> ignored = {
      {base + " -b cpu --device 2 --overwrite", "--device 2: the cpu backend has no devices; ignored"},
      {base + " -b cpu --gl-storage rgba16f --overwrite", "--gl-storage rgba16f is for the gl backend; cpu keeps"},
      {"bench -b cpu --device 1 -m copy --size 8 --repeat 1 --warmup-ms 0", "the cpu backend has no devices"}};
  for (const auto& [args, expect] : ignored) {
    const Result r = run(args);
    EXPECT_EQ(r.rc, 0) << args << "\n" << r.err;
    EXPECT_NE(r.err.find(expect), std::string::npos) << args << "\n" << r.err;
  }
  // Blur options no output or no report uses, too.
  const std::vector<std::pair<std::string, std::string>> unused = {
      {base + " -b cpu --overwrite --report-format csv", "--report-format csv without --report"},
      {base + " -b cpu --overwrite --exr-compression piz", "--exr-compression: no output is exr; ignored"},
      {base + " -b cpu --overwrite --format exr --png-compression 9", "--png-compression: no output is png"}};
  for (const auto& [args, expect] : unused) {
    const Result r = run(args);
    EXPECT_EQ(r.rc, 0) << args << "\n" << r.err;
    EXPECT_NE(r.err.find(expect), std::string::npos) << args << "\n" << r.err;
  }
  const Result both = run("-q -v methods");
  EXPECT_EQ(both.rc, 2);
  EXPECT_NE(both.err.find("--quiet excludes --verbose"), std::string::npos) << both.err;
  const Result quiet = run(base + " -b cpu --device 0 --threads 2 --overwrite");
  EXPECT_EQ(quiet.rc, 0) << quiet.err;
  EXPECT_EQ(quiet.err.find("ignored"), std::string::npos) << quiet.err;
}

// report merge: two shards' reports make one; its -o may not be an input report (it replaced it) nor a folder
// (a temporary file was left behind), both usage errors before anything is read.
TEST_F(E2E, ReportMergeOfShardsAndItsOutputChecks) {
  for (int i = 0; i < 3; ++i) make_image("in/i" + std::to_string(i) + ".png", 8, 6, 3, PixelType::UInt8, 30 + i);
  const std::string blur = "blur " + quote(at("in").string()) + " -o " + quote(at("out").string()) + " -b cpu -q";
  for (int k = 1; k <= 2; ++k) {
    const Result r = run(blur + " --shard " + std::to_string(k) + "/2 --report " +
                         quote(at("r" + std::to_string(k) + ".json").string()));
    ASSERT_EQ(r.rc, 0) << r.err;
  }
  const std::string r1 = quote(at("r1.json").string()), r2 = quote(at("r2.json").string());
  Result r = run("report merge " + r1 + " " + r2 + " -o " + quote(at("m.json").string()));
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(json::parse(slurp(at("m.json")))["images"].size(), 3u);
  // One shard alone: written, and exit 1 naming the missing one.
  r = run("report merge " + r2 + " -o " + quote(at("half.json").string()));
  EXPECT_EQ(r.rc, 1) << r.err;
  EXPECT_NE(r.err.find("shard(s) 1 of 2 missing"), std::string::npos) << r.err;
  EXPECT_EQ(json::parse(slurp(at("half.json")))["shard"]["missing"], json({1}));

  const std::string before = slurp(at("r1.json"));
  r = run("report merge " + r1 + " " + r2 + " -o " + r1);
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_NE(r.err.find("is the input report"), std::string::npos) << r.err;
  EXPECT_EQ(slurp(at("r1.json")), before);
  fs::create_directories(at("folder"));
  r = run("report merge " + r1 + " -o " + quote(at("folder").string()));
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_NE(r.err.find("is a folder"), std::string::npos) << r.err;
  for (const auto& e : fs::directory_iterator(dir_))
    EXPECT_EQ(e.path().filename().string().find(".tmp"), std::string::npos) << e.path();
}

// One backend per GPU over one queue (the GPU check runs this where the machine has two or more GPUs).
TEST_F(E2E, AllGpusShareTheFolder) {
  for (int i = 0; i < 6; ++i) make_image("in/i" + std::to_string(i) + ".png", 40, 30, 3, PixelType::UInt8, 20 + i);
  const Result r = run("blur " + quote(at("in").string()) + " -o " + quote(at("out").string()) +
                       " -b cuda --device all --report " + quote(at("r.json").string()));
  for (const char* no_gpu : {"no cuda device here", "CUDA: no usable device", kNotBuiltIn})
    if (r.rc != 0 && r.err.find(no_gpu) != std::string::npos) GTEST_SKIP() << "skipped: no CUDA device: " << r.err;
  ASSERT_EQ(r.rc, 0) << r.err;
  const json rep = json::parse(slurp(at("r.json")));
  const std::string device = rep["backend"]["device"].get<std::string>();
  if (device.find(", ") == std::string::npos) GTEST_SKIP() << "skipped: one GPU here (" << device << "); needs two";
  ASSERT_EQ(rep["images"].size(), 6u);
  for (const auto& img : rep["images"]) EXPECT_EQ(img["status"], "ok") << img.dump();
}

TEST_F(E2E, UsageErrorsExitTwoAndWriteNothing) {
  make_image("in/a.png", 8, 8, 3, PixelType::UInt8, 5);
  make_image("in/sub/a.png", 8, 8, 3, PixelType::UInt8, 6);
  const std::string in = quote(at("in/a.png").string()), out = " -o " + quote(at("out").string()) + " -b cpu";
  struct Case {
    std::string args, expect;
  };
  const std::vector<Case> cases = {
      {"blur " + in + out + " --method no-such-method", "unknown method"},
      {"blur " + in + out + " --sigma 1000", "outside"},
      {"blur " + in + out + " --sigma abc", "not a number"},
      {"blur " + in + out + " --border sideways", "not one of"},
      {"blur " + in + out + " --method gauss-2d --impl fragment", "has no parameter"},
      {"blur " + in + out + " --param sigma", "not name=value"},
      {"blur " + in + out + " --sigma 2 --param sigma=3", "given twice"},
      {"blur " + in + out + " --format png --pixel-type half", "cannot be written"},
      {"blur " + in + out + " --pixel-type half", "--pixel-type half cannot be written as png"},  // by extension
      {"blur " + in + " -o " + quote(at("in").string()) + " -b cpu", "would overwrite an input"},
      {"blur " + in + " " + quote(at("in/sub/a.png").string()) + out, "both map to output"},
      {"blur " + in + out + " --no-such-option", "not expected"},
      {"blur " + in, "--output"},
      {"nonsense", "unknown command 'nonsense'"},
      {"quality -b cpu --method box " + in + " " + in, "one image given twice"},  // it counted twice in the mean
      {"bench -b cpu --size 0", "--size"},
      {"bench -b cpu --method nope", "unknown method"},
  };
  for (const auto& c : cases) {
    const Result r = run(c.args);
    EXPECT_EQ(r.rc, 2) << c.args << "\n" << r.err;
    EXPECT_NE(r.err.find(c.expect), std::string::npos) << c.args << "\n" << r.err;
    EXPECT_NE(r.err.find("gpublur: error: "), std::string::npos) << c.args << "\n" << r.err;  // CLI11's too
    EXPECT_FALSE(fs::exists(at("out"))) << c.args;
  }
}

// The kernel method from the command line: bad kernel files are usage errors (exit 2) naming the file and the
// line, nothing written; a good one blurs, and the report carries --kernel and --normalize like any parameter.
TEST_F(E2E, KernelFileErrorsAndReport) {
  make_image("in/a.png", 9, 7, 3, PixelType::UInt8, 5);
  const std::string in = quote(at("in/a.png").string()), out = " -o " + quote(at("out").string()) + " -b cpu";
  std::ofstream(at("ragged.txt")) << "# ragged\n1 2 1\n2 4\n1 2 1\n";
  std::ofstream(at("even.txt")) << "1 1\n1 1\n";
  std::ofstream(at("word.txt")) << "1 2 1\n2 four 2\n1 2 1\n";
  std::ofstream(at("empty.txt")) << "";
  std::ofstream(at("zero.txt")) << "1 -2 1\n";
  std::ofstream(at("good.txt")) << "1 2 1\n2 4 2\n1 2 1\n";
  struct Case {
    std::string args, expect;
  };
  auto k = [&](const std::string& f) { return " --method kernel --kernel " + quote(at(f).string()); };
  const std::vector<Case> cases = {
      {"blur " + in + out + k("ragged.txt"), "ragged.txt', line 3: ragged rows"},
      {"blur " + in + out + k("even.txt"), "even.txt', line 1: 2 columns: an even width has no centre"},
      {"blur " + in + out + k("word.txt"), "word.txt', line 2: 'four' is not a finite number"},
      {"blur " + in + out + k("empty.txt"), "empty.txt': no numbers"},
      {"blur " + in + out + k("missing.txt"), "missing.txt': cannot be opened"},
      {"blur " + in + out + k("zero.txt") + " --normalize", "about 0"},
      {"blur " + in + out + " --method kernel", "needs --kernel FILE"},
      {"blur " + in + out + k("good.txt") + " --normalize --normalize", "received 2"},  // as --sigma 3 --sigma 4
      {"blur " + in + out + k("good.txt") + " --normalize=maybe", "--normalize"},
      {"quality -b cpu" + k("word.txt"), "line 2"},
      {"bench -b cpu --size 16 --method kernel --param kernel=" + quote(at("ragged.txt").string()), "line 3"},
  };
  for (const auto& c : cases) {
    const Result r = run(c.args);
    EXPECT_EQ(r.rc, 2) << c.args << "\n" << r.err;
    EXPECT_NE(r.err.find(c.expect), std::string::npos) << c.args << "\n" << r.err;
    EXPECT_NE(r.err.find("gpublur: error: "), std::string::npos) << c.args << "\n" << r.err;  // CLI11's too
    EXPECT_FALSE(fs::exists(at("out"))) << c.args;
  }
  const Result r = run("blur " + in + out + k("good.txt") + " --normalize --border wrap --report " +
                       quote(at("r.json").string()));
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_TRUE(fs::exists(at("out/a.png")));
  const json rep = json::parse(slurp(at("r.json")));
  const auto errors = testing::schema_errors(load_schema(), rep);
  EXPECT_TRUE(errors.empty()) << errors.front();
  EXPECT_EQ(rep["method"]["name"], "kernel");
  EXPECT_EQ(rep["method"]["params"]["kernel"], at("good.txt").string());
  EXPECT_EQ(rep["method"]["params"]["normalize"], "true");
  EXPECT_EQ(rep["method"]["radius"], 1);
  // 1 2 1 (x) 1 2 1 / 16: variance 1/2 per axis.
  EXPECT_NEAR(rep["method"]["effective_sigma"].get<double>(), std::sqrt(0.5), 1e-9);
  // --normalize=false clears the flag (any value had turned it on).
  const Result off = run("blur " + in + out + k("good.txt") + " --normalize=false --overwrite --report " +
                         quote(at("off.json").string()));
  ASSERT_EQ(off.rc, 0) << off.err;
  EXPECT_EQ(json::parse(slurp(at("off.json")))["method"]["params"]["normalize"], "false");
}

// The report's backend.storage on GL is the last image's texture format (docs/cli.md): it read rgba32f whatever
// the channels, taken when the backend opened, before any image.
TEST_F(E2E, GlReportStorageIsTheLastImagesFormat) {
  make_image("one.exr", 9, 7, 1, PixelType::Float, 50);
  const Result r = run("blur " + quote(at("one.exr").string()) + " -o " + quote(at("o").string()) +
                       " -b gl -q --gl-storage rgba16f --report -");
  if (r.rc != 0 && (r.err.find("EGL") != std::string::npos || r.err.find(kNotBuiltIn) != std::string::npos))
    GTEST_SKIP() << r.err;
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["backend"]["storage"], "r16f");
}

// -b auto takes the next backend where GL makes a context but its backend does not start (here Mesa claims GL 4.5
// with GLSL 3.30: no compute shaders), and says why; it exited 1. -b gl is that one error.
TEST_F(E2E, AutoPassesOverAGlThatDoesNotStart) {
  make_image("a.png", 9, 7, 3, PixelType::UInt8, 51);
  const std::string env = "MESA_GL_VERSION_OVERRIDE=4.5 MESA_GLSL_VERSION_OVERRIDE=330 MESA_SHADER_CACHE_DISABLE=1";
  const Result gl = run("blur " + quote(at("a.png").string()) + " -o " + quote(at("g").string()) + " -b gl", "", env);
  if (gl.err.find(kNotBuiltIn) != std::string::npos) GTEST_SKIP() << gl.err;
  if (gl.rc == 0) GTEST_SKIP() << "this GL started despite the overrides (not Mesa?)";
  const Result r = run("blur " + quote(at("a.png").string()) + " -o " + quote(at("o").string()) +
                       " -b auto --report -", "", env);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["backend"]["name"], "cpu");
  EXPECT_NE(r.err.find("auto: a GL context was made but the GL backend did not start"), std::string::npos) << r.err;
  EXPECT_TRUE(fs::exists(at("o/a.png")));
}

// -b auto passes over a software GL (llvmpipe: the cpu backend ran 2.6-8x faster on the same cores); -b gl runs it.
TEST_F(E2E, AutoPassesOverASoftwareGl) {
  make_image("a.png", 9, 7, 3, PixelType::UInt8, 52);
  const Result gl = run("blur " + quote(at("a.png").string()) + " -o " + quote(at("g").string()) + " -b gl --report -");
  if (gl.rc != 0) GTEST_SKIP() << "no GL here: " << gl.err;
  const std::string device = json::parse(gl.out)["backend"]["device"].get<std::string>();
  if (device.find("llvmpipe") == std::string::npos) GTEST_SKIP() << "GL runs on " << device << ", not llvmpipe";
  const Result r = run("blur " + quote(at("a.png").string()) + " -o " + quote(at("o").string()) + " -v --report -");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["backend"]["name"], "cpu");
  EXPECT_NE(r.err.find("auto: GL is a software renderer"), std::string::npos) << r.err;
}

// The GL drivers keep gpublur's compiled programs in its own cache folder (gpu/gl/shader_cache.hpp), here under a
// home of the test's; a driver's cache folder the user names is left to that driver. Mesa's llvmpipe writes
// mesa_shader_cache/ there, NVIDIA's driver GLCache/.
TEST_F(E2E, GlShaderCacheLivesInGpublursFolder) {
  make_image("in/a.png", 19, 11, 3, PixelType::UInt8, 31);
  fs::create_directories(at("home"));
  const std::string clean =
      "env -u XDG_CACHE_HOME -u MESA_SHADER_CACHE_DIR -u MESA_GLSL_CACHE_DIR -u MESA_SHADER_CACHE_DISABLE "
      "-u __GL_SHADER_DISK_CACHE_PATH -u __GL_SHADER_DISK_CACHE HOME=" + quote(at("home").string());
  const Result r =
      run("blur " + quote(at("in").string()) + " -o " + quote(at("out").string()) + " -b gl -q", "", clean);
  if (r.rc != 0 && (r.err.find("EGL") != std::string::npos || r.err.find(kNotBuiltIn) != std::string::npos))
    GTEST_SKIP() << r.err;
  ASSERT_EQ(r.rc, 0) << r.err;
  const fs::path dir = at("home/.cache/gpublur/gl-shaders");
  ASSERT_TRUE(fs::is_directory(dir));
  EXPECT_TRUE(fs::is_directory(dir / "mesa_shader_cache") || fs::is_directory(dir / "GLCache"))
      << "no driver wrote its cache in " << dir;
  EXPECT_EQ(fs::status(dir).permissions() & (fs::perms::group_all | fs::perms::others_all), fs::perms::none);

  fs::create_directories(at("mine"));
  const Result m = run("blur " + quote(at("in").string()) + " -o " + quote(at("out2").string()) + " -b gl -q", "",
                       clean + " MESA_SHADER_CACHE_DIR=" + quote(at("mine").string()) +
                           " __GL_SHADER_DISK_CACHE_PATH=" + quote(at("mine").string()));
  ASSERT_EQ(m.rc, 0) << m.err;
  EXPECT_TRUE(fs::is_directory(at("mine/mesa_shader_cache")) || fs::is_directory(at("mine/GLCache")))
      << "the user's folder was not the drivers'";

  // A home that does not exist (a service account's) is not made: the cache goes under TMPDIR.
  fs::create_directories(at("tmp"));
  const Result n = run("blur " + quote(at("in").string()) + " -o " + quote(at("out3").string()) + " -b gl -q", "",
                       clean + " HOME=" + quote(at("nohome/x").string()) + " TMPDIR=" + quote(at("tmp").string()));
  ASSERT_EQ(n.rc, 0) << n.err;
  EXPECT_FALSE(fs::exists(at("nohome")));
  EXPECT_TRUE(fs::is_directory(at("tmp/gpublur-" + std::to_string(getuid()) + "/gl-shaders")));

  // No folder at all (XDG_CACHE_HOME, home and TMPDIR absent): the caches are off, said, and the drivers' defaults
  // are not made either (Mesa made XDG_CACHE_HOME, nohome, and its mesa_shader_cache/ there).
  const Result none = run("blur " + quote(at("in").string()) + " -o " + quote(at("out4").string()) + " -b gl", "",
                          clean + " XDG_CACHE_HOME=" + quote(at("nohome").string()) +
                              " HOME=" + quote(at("nohome/x").string()) +
                              " TMPDIR=" + quote(at("nohome/t").string()));
  ASSERT_EQ(none.rc, 0) << none.err;
  EXPECT_FALSE(fs::exists(at("nohome")));
  EXPECT_NE(none.err.find("GL shader cache off: no folder to keep it in"), std::string::npos) << none.err;
}

// GPUBLUR_PASS_TIMES=1 on the cpu backend: each run logs its passes by the schedules' names with their host-clock
// milliseconds, in the form scripts/pass_times.py reads; without it, no such line.
TEST_F(E2E, CpuBackendLogsPassTimes) {
  const std::string args =
      "bench --backend cpu --method kawase --sigma 3 --size 40 --repeat 3 --warmup 0 --warmup-ms 0";
  const Result r = run(args, "", "GPUBLUR_PASS_TIMES=1");
  ASSERT_EQ(r.rc, 0) << r.err;
  const std::regex line(R"(pass times ms: kawase-blocks [0-9]+\.[0-9]{4}, kawase-blocks [0-9]+\.[0-9]{4})");
  EXPECT_TRUE(std::regex_search(r.err, line)) << r.err;
  const Result quiet = run(args, "", "GPUBLUR_PASS_TIMES=0");
  ASSERT_EQ(quiet.rc, 0) << quiet.err;
  EXPECT_EQ(quiet.err.find("pass times ms"), std::string::npos) << quiet.err;
}

// 8-bit PNGs to the backend as bytes (core/packed.hpp; GPUBLUR_PACKED_IO=1 forces it where the backend runs on
// the host) or as float pixels (=0): the files written are the same bit for bit either way, on cpu and gl, for gray, gray+alpha, RGB and RGBA, with the colour options, and
// when a PNG becomes an EXR (bytes up, float pixels down; there the pixels are compared, the header has a time).
TEST_F(E2E, EightBitPathWritesTheSameFiles) {
  make_image("in/y.png", 23, 17, 1, PixelType::UInt8, 21);
  make_image("in/ya.png", 23, 17, 2, PixelType::UInt8, 22);
  make_image("in/rgb.png", 31, 9, 3, PixelType::UInt8, 23);
  make_image("in/rgba.png", 16, 33, 4, PixelType::UInt8, 24);
  const std::vector<std::string> names = {"y", "ya", "rgb", "rgba"};
  for (const std::string backend : {"cpu", "gl"})
    for (const std::string opts : {"", " --no-linear", " --no-premultiply", " --format exr"}) {
      SCOPED_TRACE(backend + opts);
      const std::string common = " -b " + backend + " --sigma 1.5 -q" + opts + " ";
      const Result a = run("blur " + quote(at("in").string()) + " -o " + quote(at("a").string()) + common, "",
                           "GPUBLUR_PACKED_IO=1");
      const Result b = run("blur " + quote(at("in").string()) + " -o " + quote(at("b").string()) + common, "",
                           "GPUBLUR_PACKED_IO=0");
      if (backend == "gl" && a.rc != 0 &&
          (a.err.find("EGL") != std::string::npos || a.err.find(kNotBuiltIn) != std::string::npos))
        GTEST_SKIP() << a.err;
      ASSERT_EQ(a.rc, 0) << a.err;
      ASSERT_EQ(b.rc, 0) << b.err;
      const std::string ext = opts == " --format exr" ? ".exr" : ".png";
      for (const std::string& n : names) {
        if (ext == ".exr") {  // the pixels (the header has the time of writing)
          LoadedImage la, lb;
          ASSERT_TRUE(io_->read(at("a/" + n + ext).string(), ReadLimits{}, la).ok()) << n;
          ASSERT_TRUE(io_->read(at("b/" + n + ext).string(), ReadLimits{}, lb).ok()) << n;
          EXPECT_FALSE(la.image.data.empty()) << n;
          EXPECT_TRUE(la.image.data == lb.image.data) << n << ext << " differs";
          continue;
        }
        const std::string fa = slurp(at("a/" + n + ext)), fb = slurp(at("b/" + n + ext));
        EXPECT_FALSE(fa.empty()) << n;
        EXPECT_TRUE(fa == fb) << n << ext << " differs";
      }
      fs::remove_all(at("a"));
      fs::remove_all(at("b"));
    }
}

// A PNG written from values beyond [0, 1] says how many it clipped, in the default colour mode too: an EXR's
// highlights and NaN through the sRGB encoding, a sharpening kernel's overshoot from an 8-bit PNG on the float path
// (cpu) and the 8-bit path (gl, packed), both counting alike. The encoding had clipped them before the writer counted
// (only --no-linear said so), and the 8-bit path counted nothing.
TEST_F(E2E, PngOutputsSayWhatTheEncodingClips) {
  Image hdr(4, 1, 3);
  hdr.data = {4.0f, 0.5f, 0.5f, std::nanf(""), 0.5f, 0.5f, -2.0f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f};
  ImageMeta meta;
  meta.format = "exr";
  meta.pixel_type = PixelType::Float;
  meta.channel_names = {"R", "G", "B"};
  ASSERT_TRUE(io_->write(at("hdr.exr").string(), hdr, meta).ok());
  for (const std::string opts : {"", " --no-linear"}) {
    const Result r = run("blur " + quote(at("hdr.exr").string()) + " -o " + quote(at("o").string()) +
                         " -b cpu -m copy --format png --overwrite" + opts);
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_NE(r.err.find("1 value(s) above 1, 1 below 0 and 1 NaN clipped"), std::string::npos) << opts << r.err;
  }
  // An edge from 20 to 240 under a kernel that overshoots: outputs below 0 and above 1 in linear light.
  Image edge(8, 3, 3);
  for (int y = 0; y < 3; ++y)
    for (int x = 0; x < 8; ++x)
      for (int c = 0; c < 3; ++c) edge.at(x, y, c) = x < 4 ? 20.0f / 255 : 240.0f / 255;
  ImageMeta pm;
  pm.format = "png";
  pm.pixel_type = PixelType::UInt8;
  pm.srgb = true;
  fs::create_directories(at("in"));
  ASSERT_TRUE(io_->write(at("in/edge.png").string(), edge, pm).ok());
  std::ofstream(at("sharpen.txt")) << "-1 3 -1\n";
  for (const std::string backend : {"cpu", "gl"}) {
    const Result r = run("blur " + quote(at("in").string()) + " -o " + quote(at("s_" + backend).string()) + " -b " +
                             backend + " -m kernel --kernel " + quote(at("sharpen.txt").string()),
                         "", "GPUBLUR_PACKED_IO=1");
    if (backend == "gl" && r.rc != 0 &&
        (r.err.find("EGL") != std::string::npos || r.err.find(kNotBuiltIn) != std::string::npos))
      GTEST_SKIP() << r.err;
    ASSERT_EQ(r.rc, 0) << r.err;
    // Each row's pixel each side of the edge, in 3 channels, on 3 rows: 9 above (2b - d), 9 below (2d - b).
    EXPECT_NE(r.err.find("9 value(s) above 1, 9 below 0 and 0 NaN clipped"), std::string::npos) << backend << r.err;
  }
}

// A PNG's transparent pixels (alpha written as 0) have colour 0 on every backend and path, and say nothing: a box
// blur's running sums leave residue in both (1e-21 / 1e-22), which un-premultiplied to noise (cpu 255, gl 0) and
// thousands of "clipped" values on the project's own sprite. Colour that would have shown there (an EXR's emission
// at alpha 0) is said, as dropped.
TEST_F(E2E, TransparentPixelsHaveNoColourAndEmissionIsSaid) {
  const std::string sprite = gpublur::testing::source_dir() + "/testdata/sprites_rgba8.png";
  for (const std::string backend : {"cpu", "gl"})
    for (const std::string packed : {"0", "1"}) {
      SCOPED_TRACE(backend + " packed " + packed);
      const Result r = run("blur " + quote(sprite) + " -o " + quote(at("s").string()) + " -b " + backend +
                               " -m box --sigma 5 --overwrite",
                           "", "GPUBLUR_PACKED_IO=" + packed);
      if (backend == "gl" && r.rc != 0 &&
          (r.err.find("EGL") != std::string::npos || r.err.find(kNotBuiltIn) != std::string::npos))
        GTEST_SKIP() << r.err;
      ASSERT_EQ(r.rc, 0) << r.err;
      EXPECT_EQ(r.err.find("clipped"), std::string::npos) << r.err;
      EXPECT_EQ(r.err.find("dropped"), std::string::npos) << r.err;
      LoadedImage out;
      ASSERT_TRUE(io_->read(at("s/sprites_rgba8.png").string(), ReadLimits{}, out).ok());
      ASSERT_EQ(out.image.channels, 4);
      size_t transparent = 0, coloured = 0;
      for (size_t p = 0; p < out.image.pixel_count(); ++p) {
        const float* px = out.image.data.data() + p * 4;
        if (px[3] != 0.0f) continue;
        ++transparent;
        coloured += px[0] != 0.0f || px[1] != 0.0f || px[2] != 0.0f;
      }
      EXPECT_GT(transparent, 0u);
      EXPECT_EQ(coloured, 0u) << "of " << transparent << " transparent pixels";
    }
  // Emission: colour at alpha 0 in an EXR, and colour over alpha (more than 1 straight).
  Image glow(2, 1, 4);
  glow.data = {0.5f, 0.25f, 0.0f, 0.0f, 0.8f, 0.8f, 0.8f, 0.2f};
  ImageMeta meta;
  meta.format = "exr";
  meta.pixel_type = PixelType::Float;
  meta.channel_names = {"R", "G", "B", "A"};
  meta.alpha_channel = 3;
  ASSERT_TRUE(io_->write(at("glow.exr").string(), glow, meta).ok());
  const Result r = run("blur " + quote(at("glow.exr").string()) + " -o " + quote(at("g").string()) +
                       " -b cpu -m copy --format png");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.err.find("2 colour value(s) of pixels whose alpha writes as 0 dropped"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("3 value(s) above 1, 0 below 0 and 0 NaN clipped"), std::string::npos) << r.err;
  LoadedImage out;
  ASSERT_TRUE(io_->read(at("g/glow.png").string(), ReadLimits{}, out).ok());
  EXPECT_EQ(out.image.data[0], 0.0f);
  EXPECT_EQ(out.image.data[1], 0.0f);
  EXPECT_EQ(out.image.data[3], 0.0f);
}

}  // namespace
namespace e2e {  // the fixture's helpers (e2e_fixture.hpp)

// A 64 x 48 RGBA float EXR of values in [0.1, 1] with a NaN and an Inf in every channel, a -Inf beside the Inf (one
// footprint holds both) and an Inf at a corner (its footprint crosses the border), written to in.exr.
Image E2E::write_nonfinite_exr() {
  Image img(64, 48, 4);
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(0.1f, 1.0f);
  for (float& v : img.data) v = u(rng);
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  for (int c = 0; c < 4; ++c) img.at(10, 10, c) = nan, img.at(40, 30, c) = inf;
  img.at(44, 31, 1) = -inf;
  img.at(63, 0, 3) = inf;
  write_rgba_exr(img);
  return img;
}

void E2E::write_rgba_exr(const Image& img) {
  ImageMeta meta;
  meta.format = "exr";
  meta.pixel_type = PixelType::Float;
  meta.channel_names = {"R", "G", "B", "A"};
  meta.alpha_channel = 3;
  ASSERT_TRUE(io_->write(at("in.exr").string(), img, meta).ok());
}

std::map<std::string, Image> E2E::blur_on_every_backend(const std::string& args) {
  std::map<std::string, Image> outs;
  for (const std::string backend : {"cpu", "gl", "cuda"}) {
    const std::string out = "out_" + backend;
    const Result r = run("blur " + quote(at("in.exr").string()) + " -o " + quote(at(out).string()) +
                         " -q --overwrite -b " + backend + " -m " + args);
    // No such device here: GL without EGL, CUDA without a usable device (as the other tests skip them), or a build
    // without the backend (GPUBLUR_CUDA / GPUBLUR_GL off).
    if (r.rc != 0 && r.err.find(kNotBuiltIn) != std::string::npos) continue;
    if (backend == "gl" && r.rc != 0 && r.err.find("EGL") != std::string::npos) continue;
    if (backend == "cuda" && r.rc != 0 && r.err.find("no usable device") != std::string::npos) continue;
    EXPECT_EQ(r.rc, 0) << backend << ": " << r.err;
    if (r.rc == 0) outs[backend] = decode(at(out + "/in.exr")).image;
  }
  return outs;
}

}  // namespace e2e
namespace {

std::string kGaussKernel() { return gpublur::testing::source_dir() + "/testdata/kernels/gauss_sigma2.txt"; }

// An EXR with NaN, +Inf and -Inf blurred by box (separable and SAT), integral, gauss-2d, gauss-linear, fft, kawase,
// diffusion, gauss-sep, iir, spread and a user's Gaussian kernel on cpu, gl and cuda (where each runs): every backend
// gives the non-finite outputs of the plan's footprint (core/nonfinite.hpp: NaN where it holds a NaN or both
// infinities, else the infinity) and the CPU's finite ones (to the plan's tolerance). Before the pipeline took them
// out, cpu and gl (llvmpipe) disagreed on which outputs were NaN for all of these but box's direct 2D impl and
// gauss-sep, and gauss-sep did on the H200 (gl at sigma 5, gl and cuda at 16: NaN for one kind of infinity;
// docs/methods.md, "Non-finite inputs").
TEST_F(E2E, NonfiniteInputsGiveTheSameOutputsOnEveryBackend) {
  const Image img = write_nonfinite_exr();
  struct Case {
    std::string args;
    std::map<std::string, std::string> params;
  };
  const std::vector<Case> cases = {
      {"box --sigma 3", {{"sigma", "3"}}},
      {"box --sigma 3 --impl sat --border mirror", {{"sigma", "3"}, {"impl", "sat"}, {"border", "mirror"}}},
      {"integral --sigma 2.5 --border wrap", {{"sigma", "2.5"}, {"border", "wrap"}}},
      {"gauss-2d --sigma 2", {{"sigma", "2"}}},
      {"gauss-linear --sigma 3", {{"sigma", "3"}}},
      {"fft --sigma 3", {{"sigma", "3"}}},
      {"kawase --sigma 3", {{"sigma", "3"}}},
      {"diffusion --sigma 2", {{"sigma", "2"}}},
      // CUDA's passes differ by radius (conv1d.cu: the fused kernel to radius 12, two passes to 47, RGBA on tensor
      // cores from 48; then the FFT segments).
      {"gauss-sep --sigma 2", {{"sigma", "2"}}},
      {"gauss-sep --sigma 5 --border mirror", {{"sigma", "5"}, {"border", "mirror"}}},
      {"gauss-sep --sigma 16", {{"sigma", "16"}}},
      // A support with no end: every output of a channel that holds one (here each channel holds a NaN).
      {"iir --sigma 3", {{"sigma", "3"}}},
      {"iir --sigma 3 --impl deriche --border wrap", {{"sigma", "3"}, {"impl", "deriche"}, {"border", "wrap"}}},
      // Since the ninety-ninth session (GL +Inf where cpu had NaN past the tent: the tables' sums).
      {"spread --sigma 3", {{"sigma", "3"}}},
      // A user's kernel of positive weights: its square (the weights' own taps for others: the test below).
      {"kernel --kernel " + quote(kGaussKernel()), {{"kernel", kGaussKernel()}}},
      {"kernel --impl 2d --border mirror --kernel " + quote(kGaussKernel()),
       {{"kernel", kGaussKernel()}, {"impl", "2d"}, {"border", "mirror"}}}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.args);
    Plan plan;
    ASSERT_TRUE(resolve_plan(c.args.substr(0, c.args.find(' ')), c.params, plan).ok());
    const std::map<std::string, Image> outs = blur_on_every_backend(c.args);
    ASSERT_TRUE(outs.count("cpu"));
    // The direct convolution's non-finite outputs (tests/core/nonfinite_footprint.hpp).
    const int R = plan.nonfinite_reach;
    ASSERT_GT(R, 0);
    std::vector<testing::Footprint> wants;  // once a case, not a backend (iir's reach is the whole image)
    for (int y = 0; y < img.height; ++y)
      for (int x = 0; x < img.width; ++x)
        for (int ch = 0; ch < img.channels; ++ch)
          wants.push_back(testing::direct_footprint(img, x, y, ch, R, plan.border));
    for (const auto& [backend, got] : outs) {
      ASSERT_EQ(got.data.size(), img.data.size()) << backend;
      size_t nonfinite = 0;
      for (int y = 0; y < img.height; ++y)
        for (int x = 0; x < img.width; ++x)
          for (int ch = 0; ch < img.channels; ++ch) {
            const auto want = wants[(size_t(y) * img.width + x) * img.channels + ch];
            const float b = got.at(x, y, ch);
            EXPECT_EQ(testing::footprint_of(b), want) << backend << " at " << x << "," << y << "," << ch;
            if (want == testing::Footprint::Finite)  // finite, as cpu's (to the plan's tolerance)
              EXPECT_NEAR(b, outs.at("cpu").at(x, y, ch), std::max(1e-5, plan.tolerance))
                  << backend << " at " << x << "," << y << "," << ch;
            nonfinite += std::isfinite(b) ? 0 : 1;
          }
      std::printf("[ measured ] %s on %s: %zu non-finite outputs of %zu\n", c.args.c_str(), backend.c_str(),
                  nonfinite, img.data.size());
    }
  }
}

// One +Inf in one channel, through iir's support with no end: that channel +Inf everywhere on every backend, the others
// finite and as cpu's. The recursions made NaN of some outputs and Inf of others, each backend its own way (cpu NaN
// but the Inf pixel, GL a 3 x 3 of Inf around it, on a 9 x 5 image).
TEST_F(E2E, OneInfinityFillsItsChannelThroughIir) {
  Image img(9, 5, 4);
  for (size_t i = 0; i < img.data.size(); ++i) img.data[i] = 0.25f + 0.5f * float(i % 7) / 7;
  img.at(4, 2, 1) = std::numeric_limits<float>::infinity();
  write_rgba_exr(img);
  if (HasFatalFailure()) return;
  for (const std::string args : {"iir --sigma 1.5", "iir --sigma 1.5 --impl deriche --border mirror"}) {
    SCOPED_TRACE(args);
    const std::map<std::string, Image> outs = blur_on_every_backend(args);
    ASSERT_TRUE(outs.count("cpu"));
    for (const auto& [backend, got] : outs)
      for (int y = 0; y < img.height; ++y)
        for (int x = 0; x < img.width; ++x)
          for (int c = 0; c < 4; ++c) {
            const float v = got.at(x, y, c);
            if (c == 1) {
              EXPECT_EQ(v, std::numeric_limits<float>::infinity()) << backend << " at " << x << "," << y;
            } else {
              ASSERT_TRUE(std::isfinite(v)) << backend << " at " << x << "," << y << "," << c;
              EXPECT_NEAR(v, outs.at("cpu").at(x, y, c), 1e-5) << backend << " at " << x << "," << y << "," << c;
            }
          }
  }
}

// A user's kernel of zero and negative weights meets infinities as its direct convolution does: a zero weight reads
// nothing, a negative one turns the infinity's sign, +Inf meeting -Inf is NaN; every other output is finite, as the
// convolution of the finite pixels. Separable (a 1D row), rank one and 2D, on every backend. GL's taps, padded with
// zero weights, made NaN of +Inf, and past the kernel (a 12 x 1 line of 8 through "1 2 1": NaN at 7-10 where cpu had
// Inf at 8-10).
TEST_F(E2E, UserKernelsMeetInfinitiesAsTheirDirectConvolution) {
  Image img(11, 7, 1);
  for (size_t i = 0; i < img.data.size(); ++i) img.data[i] = 0.25f + 0.5f * float(i % 5) / 5;
  const float inf = std::numeric_limits<float>::infinity();
  img.at(5, 3, 0) = inf, img.at(7, 3, 0) = -inf, img.at(0, 0, 0) = inf;
  ImageMeta meta;
  meta.format = "exr", meta.pixel_type = PixelType::Float, meta.channel_names = {"Y"};
  ASSERT_TRUE(io_->write(at("in.exr").string(), img, meta).ok());
  struct Kernel {
    std::string file, text, args;
  };
  const std::vector<Kernel> kernels = {{"row.txt", "1 0 -2 0 1\n", ""},
                                       {"outer.txt", "0 0 0\n1 0 -1\n2 0 -2\n", ""},
                                       {"plus.txt", "0 1 0\n1 -1 1\n0 1 0\n", ""},
                                       {"plus.txt", "0 1 0\n1 -1 1\n0 1 0\n", " --border wrap"}};
  for (const Kernel& k : kernels) {
    SCOPED_TRACE(k.file + k.args);
    std::ofstream(at(k.file)) << k.text;
    // The true convolution of the file: out(x, y) = sum K(a, b) in(x - a, y - b) over its nonzero weights (K(a, b) at
    // column a + rx, row b + ry; a 1D row along x, then y), clamp or wrap.
    std::vector<float> w;
    std::istringstream in(k.text);
    for (float v; in >> v;) w.push_back(v);
    const bool one_d = k.file == "row.txt";
    const int kw = one_d ? int(w.size()) : 3, kh = one_d ? kw : 3, rx = kw / 2, ry = kh / 2;
    const Border border = k.args.empty() ? Border::Clamp : Border::Wrap;
    auto weight = [&](int a, int b) {
      return one_d ? w[size_t(a + rx)] * w[size_t(b + ry)] : w[size_t((b + ry) * kw + a + rx)];
    };
    const std::map<std::string, Image> outs =
        blur_on_every_backend("kernel --kernel " + quote(at(k.file).string()) + k.args);
    ASSERT_TRUE(outs.count("cpu"));
    for (const auto& [backend, got] : outs)
      for (int y = 0; y < img.height; ++y)
        for (int x = 0; x < img.width; ++x) {
          double sum = 0;
          for (int b = -ry; b <= ry; ++b)
            for (int a = -rx; a <= rx; ++a)
              if (const float wt = weight(a, b); wt != 0)
                sum += double(wt) *
                       img.at(remap_index(x - a, img.width, border), remap_index(y - b, img.height, border), 0);
          const float v = got.at(x, y, 0);
          if (std::isfinite(sum))
            EXPECT_NEAR(v, sum, 1e-5) << backend << " at " << x << "," << y;
          else
            EXPECT_EQ(testing::footprint_of(v), testing::footprint_of(float(sum)))
                << backend << " at " << x << "," << y;
        }
  }
}

// The methods that keep their own arithmetic on non-finite inputs (no footprint stated: pyramid, reshuffle, bilateral,
// whose programs resample or weigh by value): every backend gives the CPU's outputs, non-finite ones included (the
// same kind at the same place), finite ones to the plan's tolerance. GL bilateral masked alpha out of the range weight
// by multiplying it with 0 (an Inf in alpha made the weight NaN): 196 outputs differed.
TEST_F(E2E, NonfiniteInputsWithoutAFootprintAgreeAcrossBackends) {
  write_nonfinite_exr();
  const std::vector<std::pair<std::string, std::map<std::string, std::string>>> cases = {
      {"pyramid --sigma 4", {{"sigma", "4"}}},
      {"reshuffle --sigma 3", {{"sigma", "3"}}},
      {"bilateral --sigma 2", {{"sigma", "2"}}},
      // Range weights that underflow float (range d^2 past ~87) beside an Inf in alpha: 0 x Inf made the GPUs' NaN
      // where the cpu's float64 weight kept it Inf (69 outputs differed on gl).
      {"bilateral --sigma 1.5 --sigma-range 0.02", {{"sigma", "1.5"}, {"sigma-range", "0.02"}}}};
  for (const auto& [args, params] : cases) {
    SCOPED_TRACE(args);
    Plan plan;
    ASSERT_TRUE(resolve_plan(args.substr(0, args.find(' ')), params, plan).ok());
    ASSERT_EQ(plan.nonfinite_reach, -1);  // (one that states a footprint belongs in the test above)
    const std::map<std::string, Image> outs = blur_on_every_backend(args);
    ASSERT_TRUE(outs.count("cpu"));
    const Image& cpu = outs.at("cpu");
    for (const auto& [backend, got] : outs) {
      ASSERT_EQ(got.data.size(), cpu.data.size()) << backend;
      size_t nonfinite = 0, differ = 0;
      for (size_t i = 0; i < got.data.size(); ++i) {
        const float b = got.data[i], a = cpu.data[i];
        nonfinite += std::isfinite(b) ? 0 : 1;
        const bool same = testing::footprint_of(a) == testing::footprint_of(b) &&
                          (!std::isfinite(a) || std::fabs(double(a) - b) <= std::max(1e-5, plan.tolerance));
        differ += same ? 0 : 1;
      }
      EXPECT_EQ(differ, 0u) << backend;
      std::printf("[ measured ] %s on %s: %zu non-finite outputs of %zu, %zu differ from cpu\n", args.c_str(),
                  backend.c_str(), nonfinite, got.data.size(), differ);
    }
  }
}

// bilateral's colour difference leaves out the image's alpha, not the last of 2 and 4 channels whatever their names:
// a step in G of an R, G EXR, or in Z of R, G, B, Z, is an edge kept on every backend, as in B of R, G, B; a step in
// the A of R, G, B, A, or of a layer's beauty.A, takes no part and is blurred. The G and Z steps were smeared (0.40 /
// 0.60 beside the edge), and then beauty.A's kept. A matte of one channel named A keeps its own edges (it was blurred
// as by the spatial Gaussian alone).
TEST_F(E2E, BilateralLeavesOutTheImagesAlphaNotItsLastChannel) {
  for (const std::vector<std::string>& names : std::vector<std::vector<std::string>>{
           {"R", "G"},
           {"R", "G", "B", "Z"},
           {"R", "G", "B"},
           {"R", "G", "B", "A"},
           {"beauty.R", "beauty.G", "beauty.B", "beauty.A"},
           {"A"}}) {
    const int c = int(names.size());
    Image img(16, 9, c);
    for (int y = 0; y < 9; ++y)
      for (int x = 0; x < 16; ++x) {
        for (int k = 0; k + 1 < c; ++k) img.at(x, y, k) = 0.5f;
        img.at(x, y, c - 1) = x >= 8 ? 1.f : 0.f;  // the step, in the last channel
      }
    ImageMeta meta;
    meta.format = "exr";
    meta.pixel_type = PixelType::Float;
    meta.channel_names = names;
    const bool alpha = c > 1 && names.back().back() == 'A';
    meta.alpha_channel = alpha ? c - 1 : -1;
    ASSERT_TRUE(io_->write(at("in.exr").string(), img, meta).ok());
    for (const auto& [backend, out] : blur_on_every_backend("bilateral --sigma 2 --sigma-range 0.05")) {
      const float left = out.at(7, 4, c - 1), right = out.at(8, 4, c - 1);
      if (alpha) {
        EXPECT_GT(left, 0.2f) << backend << " " << c;  // alpha is blurred as by the spatial Gaussian
        EXPECT_LT(right, 0.8f) << backend << " " << c;
      } else {
        EXPECT_LT(left, 1e-3f) << backend << " " << names.back();  // the edge kept
        EXPECT_GT(right, 1 - 1e-3f) << backend << " " << names.back();
      }
    }
  }
}

TEST_F(E2E, MethodsJsonParses) {
  const Result r = run("methods --json");
  ASSERT_EQ(r.rc, 0) << r.err;
  const json j = json::parse(r.out);
  ASSERT_TRUE(j.is_array());
  bool sep = false;
  for (const auto& m : j) {
    EXPECT_TRUE(m["params"].is_array());
    sep = sep || m["name"] == "gauss-sep";
  }
  EXPECT_TRUE(sep);
  const Result text = run("methods");
  EXPECT_EQ(text.rc, 0);
  EXPECT_NE(text.out.find("gauss-2d"), std::string::npos);
}

TEST_F(E2E, StdinListAndReportToStdout) {
  make_image("x/one.png", 9, 7, 3, PixelType::UInt8, 10);
  make_image("y/two.exr", 9, 7, 1, PixelType::Float, 11);
  const std::string list = at("x/one.png").string() + "\n\n" + at("y/two.exr").string() + "\n";
  const Result r = run("blur - -o " + quote(at("out").string()) + " -b cpu --report -", list);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_TRUE(fs::exists(at("out/one.png")));
  EXPECT_TRUE(fs::exists(at("out/two.exr")));
  const json rep = json::parse(r.out);  // stdout holds only the report; logs went to stderr
  EXPECT_EQ(rep["summary"]["images"], 2);
  EXPECT_TRUE(testing::schema_errors(load_schema(), rep).empty());
}

TEST_F(E2E, RecursiveKeepsStructureFlatDoesNot) {
  make_image("in/top.png", 8, 6, 3, PixelType::UInt8, 12);
  make_image("in/a/b/deep.exr", 8, 6, 4, PixelType::Half, 13);
  Result r = run("blur " + quote(at("in").string()) + " -o " + quote(at("flat").string()) + " -b cpu");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_TRUE(fs::exists(at("flat/top.png")));
  EXPECT_FALSE(fs::exists(at("flat/a")));
  r = run("blur " + quote(at("in").string()) + " -o " + quote(at("rec").string()) + " -b cpu --recursive");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_TRUE(fs::exists(at("rec/top.png")));
  EXPECT_TRUE(fs::exists(at("rec/a/b/deep.exr")));
  EXPECT_EQ(decode(at("rec/a/b/deep.exr")).image.channels, 4);
}

TEST_F(E2E, JsonlAndCsvShapes) {
  make_image("in/a.png", 8, 6, 3, PixelType::UInt8, 14);
  make_image("in/b.exr", 8, 6, 3, PixelType::Half, 15);
  std::ofstream(at("in/c.png"));  // zero bytes: an error row
  Result r = run("blur " + quote(at("in").string()) + " -o " + quote(at("o1").string()) +
                 " -b cpu --report - --report-format jsonl");
  EXPECT_EQ(r.rc, 1);
  std::istringstream lines(r.out);
  std::vector<json> js;
  for (std::string l; std::getline(lines, l);) js.push_back(json::parse(l));
  ASSERT_EQ(js.size(), 4u);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(js[i]["type"], "image");
  EXPECT_EQ(js[3]["type"], "summary");
  EXPECT_EQ(js[3]["summary"]["failed"], 1);

  r = run("blur " + quote(at("in").string()) + " -o " + quote(at("o2").string()) + " -b cpu --report " +
          quote(at("r.csv").string()) + " --report-format csv");
  EXPECT_EQ(r.rc, 1);
  std::istringstream csv(slurp(at("r.csv")));
  std::vector<std::string> rows;
  for (std::string l; std::getline(csv, l);) rows.push_back(l);
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0].rfind("input,output,width,height,channels,pixel_type,status,error,path,", 0), 0u);
  EXPECT_NE(rows[1].find(",ok,"), std::string::npos);
  EXPECT_NE(rows[3].find(",error,"), std::string::npos);
}

TEST_F(E2E, ExistingOutputsNeedOverwrite) {
  make_image("a.exr", 8, 6, 4, PixelType::Float, 16);
  const std::string args = "blur " + quote(at("a.exr").string()) + " -o " + quote(at("o").string()) + " -b cpu";
  ASSERT_EQ(run(args).rc, 0);
  const auto before = fs::last_write_time(at("o/a.exr"));
  const Result again = run(args);
  EXPECT_EQ(again.rc, 1);
  EXPECT_NE(again.err.find("--overwrite"), std::string::npos) << again.err;
  EXPECT_EQ(fs::last_write_time(at("o/a.exr")), before);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(run(args + " --overwrite --sigma 3").rc, 0);
  EXPECT_NE(fs::last_write_time(at("o/a.exr")), before);
  EXPECT_TRUE(leftovers(at("o")).empty());
}

TEST_F(E2E, FormatAndPixelTypeChange) {
  make_image("a.png", 10, 8, 4, PixelType::UInt8, 17);
  Result r = run("blur " + quote(at("a.png").string()) + " -o " + quote(at("o").string()) + " -b cpu --format exr");
  ASSERT_EQ(r.rc, 0) << r.err;
  ASSERT_TRUE(fs::exists(at("o/a.exr")));
  EXPECT_FALSE(fs::exists(at("o/a.png")));
  EXPECT_EQ(decode(at("o/a.exr")).meta.pixel_type, PixelType::Half);
  r = run("blur " + quote(at("a.png").string()) + " -o " + quote(at("p").string()) +
          " -b cpu --pixel-type uint16 --method gauss-2d --border mirror --radius 4");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(decode(at("p/a.png")).meta.pixel_type, PixelType::UInt16);

  // An EXR of half RGBA and a float Z keeps each channel's type (it went out all float); --pixel-type sets them all.
  {
    Image img(12, 9, 5);
    std::mt19937 rng(18);
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    for (float& v : img.data) v = u(rng);
    ImageMeta meta;
    meta.format = "exr";
    meta.pixel_type = PixelType::Float;
    meta.channel_names = {"R", "G", "B", "A", "Z"};
    meta.alpha_channel = 3;
    meta.channel_types = {PixelType::Half, PixelType::Half, PixelType::Half, PixelType::Half, PixelType::Float};
    ASSERT_TRUE(io_->write(at("m.exr").string(), img, meta).ok());
  }
  const std::vector<PixelType> mixed = {PixelType::Half, PixelType::Half, PixelType::Half, PixelType::Half,
                                        PixelType::Float};
  EXPECT_EQ(decode(at("m.exr")).meta.channel_types, mixed);
  r = run("blur " + quote(at("m.exr").string()) + " -o " + quote(at("q").string()) + " -b cpu");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(decode(at("q/m.exr")).meta.channel_types, mixed);
  r = run("blur " + quote(at("m.exr").string()) + " -o " + quote(at("f").string()) + " -b cpu --pixel-type half");
  ASSERT_EQ(r.rc, 0) << r.err;
  const LoadedImage all_half = decode(at("f/m.exr"));
  EXPECT_EQ(all_half.meta.pixel_type, PixelType::Half);
  EXPECT_TRUE(all_half.meta.channel_types.empty());
  // A missing input beside it is that file's error, not a usage error of the whole batch (it had no format, and
  // read "cannot be written as  (").
  r = run("blur " + quote(at("m.exr").string()) + " " + quote(at("missing.exr").string()) + " -o " +
          quote(at("g").string()) + " -b cpu --pixel-type half");
  EXPECT_EQ(r.rc, 1) << r.err;
  EXPECT_TRUE(fs::exists(at("g/m.exr"))) << r.err;
  EXPECT_NE(r.err.find("missing.exr"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("cannot be written"), std::string::npos) << r.err;
}

// PNG data is blurred in linear light and re-encoded: the output equals encode(blur(decode(input))) computed
// here with the CPU reference, and differs from blurring the encoded values (--no-linear).
TEST_F(E2E, PngIsBlurredInLinearLight) {
  make_image("a.png", 23, 19, 3, PixelType::UInt16, 20);
  const LoadedImage in = decode(at("a.png"));
  Plan plan;
  ASSERT_TRUE(resolve_plan("gauss-sep", {{"sigma", "2"}}, plan).ok());
  Image lin = in.image, expect_linear, expect_encoded;
  for (float& v : lin.data) v = srgb_to_linear(v);
  ASSERT_TRUE(reference_run(plan, lin, expect_linear).ok());
  for (float& v : expect_linear.data) v = linear_to_srgb(v);
  ASSERT_TRUE(reference_run(plan, in.image, expect_encoded).ok());

  ASSERT_EQ(run("blur " + quote(at("a.png").string()) + " -o " + quote(at("lin").string()) + " -b cpu --sigma 2").rc, 0);
  ASSERT_EQ(run("blur " + quote(at("a.png").string()) + " -o " + quote(at("enc").string()) +
                " -b cpu --sigma 2 --no-linear").rc, 0);
  const Image got_linear = decode(at("lin/a.png")).image, got_encoded = decode(at("enc/a.png")).image;
  double err_lin = 0, err_enc = 0, apart = 0;
  for (size_t i = 0; i < expect_linear.value_count(); ++i) {
    err_lin = std::max(err_lin, double(std::fabs(got_linear.data[i] - expect_linear.data[i])));
    err_enc = std::max(err_enc, double(std::fabs(got_encoded.data[i] - expect_encoded.data[i])));
    apart = std::max(apart, double(std::fabs(got_linear.data[i] - got_encoded.data[i])));
  }
  EXPECT_LT(err_lin, 1.0 / 65535);  // within uint16 quantisation
  EXPECT_LT(err_enc, 1.0 / 65535);
  EXPECT_GT(apart, 0.01);
}

// EXR to PNG: a layer's alpha (diffuse.A, beauty.A beside R, G, B) is PNG's alpha as A is, un-premultiplied and not
// encoded (it was written as a colour: sRGB-encoded, the colours left premultiplied); a lone matte named A is gray,
// encoded as a gray PNG is decoded (it was written linear, read back darker than Y's same values).
TEST_F(E2E, ExrAlphaOfALayerIsPngAlpha) {
  Image img(4, 1, 4);
  const float v[] = {0.25f, 0.25f, 0.25f, 0.5f, 0.1f, 0.2f, 0.3f, 1.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.3f, 0.1f, 0.05f, 0.75f};
  img.data.assign(std::begin(v), std::end(v));
  ImageMeta meta;
  meta.format = "exr";
  meta.pixel_type = PixelType::Float;
  const std::vector<std::vector<std::string>> layouts = {
      {"R", "G", "B", "A"}, {"diffuse.R", "diffuse.G", "diffuse.B", "diffuse.A"}, {"R", "G", "B", "beauty.A"}};
  for (size_t k = 0; k < layouts.size(); ++k) {
    meta.channel_names = layouts[k];
    const std::string name = "l" + std::to_string(k);
    ASSERT_TRUE(io_->write(at(name + ".exr").string(), img, meta).ok());
    ASSERT_EQ(run("blur " + quote(at(name + ".exr").string()) + " -o " + quote(at("o").string()) +
                  " -b cpu -m copy --format png --pixel-type uint16")
                  .rc,
              0);
  }
  const Image plain = decode(at("o/l0.png")).image;
  EXPECT_NEAR(plain.data[0], linear_to_srgb(0.5f), 1.0 / 65535);  // 0.25 / 0.5, encoded
  EXPECT_NEAR(plain.data[3], 0.5f, 1.0 / 65535);
  for (const char* layered : {"o/l1.png", "o/l2.png"}) EXPECT_EQ(decode(at(layered)).image.data, plain.data) << layered;

  Image matte(2, 1, 1);
  matte.data = {0.5f, 0.2f};
  for (const char* n : {"A", "Y"}) {
    meta.channel_names = {n};
    ASSERT_TRUE(io_->write(at(std::string("m") + n + ".exr").string(), matte, meta).ok());
    ASSERT_EQ(run("blur " + quote(at(std::string("m") + n + ".exr").string()) + " -o " + quote(at("o").string()) +
                  " -b cpu -m copy --format png --pixel-type uint16")
                  .rc,
              0);
  }
  EXPECT_EQ(decode(at("o/mA.png")).image.data, decode(at("o/mY.png")).image.data);
}

// Straight alpha is premultiplied for the blur: colour of fully transparent pixels must not bleed into
// opaque ones. Left half: alpha 0 with random strong red; right half: opaque, red 0, random green/blue.
TEST_F(E2E, TransparentColourDoesNotBleed) {
  Image img(16, 6, 4);
  std::mt19937 rng(21);
  std::uniform_real_distribution<float> u(0.2f, 1.0f);
  for (int y = 0; y < 6; ++y)
    for (int x = 0; x < 16; ++x) {
      const bool opaque = x >= 8;
      img.at(x, y, 0) = opaque ? 0.0f : u(rng);
      img.at(x, y, 1) = opaque ? u(rng) : 0.0f;
      img.at(x, y, 2) = opaque ? u(rng) : 0.0f;
      img.at(x, y, 3) = opaque ? 1.0f : 0.0f;
    }
  ImageMeta meta;
  meta.format = "png";
  meta.pixel_type = PixelType::UInt16;
  meta.channel_names = {"R", "G", "B", "A"};
  meta.alpha_channel = 3;
  meta.srgb = true;
  ASSERT_TRUE(io_->write(at("a.png").string(), img, meta).ok());
  ASSERT_EQ(run("blur " + quote(at("a.png").string()) + " -o " + quote(at("p").string()) + " -b cpu").rc, 0);
  ASSERT_EQ(run("blur " + quote(at("a.png").string()) + " -o " + quote(at("s").string()) +
                " -b cpu --no-premultiply").rc, 0);
  const Image pre = decode(at("p/a.png")).image, straight = decode(at("s/a.png")).image;
  float red_pre = 0, red_straight = 0;
  for (int y = 0; y < 6; ++y)
    for (int x = 8; x < 16; ++x) {
      red_pre = std::max(red_pre, pre.at(x, y, 0));
      red_straight = std::max(red_straight, straight.at(x, y, 0));
    }
  EXPECT_EQ(red_pre, 0.0f);
  EXPECT_GT(red_straight, 0.05f);
  EXPECT_LT(pre.at(8, 0, 3), 1.0f);  // alpha itself is blurred
  EXPECT_GT(pre.at(8, 0, 3), 0.0f);
}

// Ctrl-C (or the terminal closing: SIGHUP) while an output is being written: exit 130, the temporary removed, no
// partial output; the report holds what finished before the signal and the image whose write it stopped, and says
// the run was interrupted, instead of leaving an earlier report at its path to look like this run's.
TEST_F(E2E, InterruptLeavesNoPartialOutput) {
  make_image("a.png", 32, 32, 3, PixelType::UInt8, 18);
  const std::string bin = gpublur::testing::gpublur_bin();
  for (const int signal : {SIGINT, SIGHUP}) {
    SCOPED_TRACE(signal == SIGINT ? "SIGINT" : "SIGHUP");
    std::ofstream(at("r.json")) << "an earlier run's report";
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      setenv("GPUBLUR_TEST_WRITE_DELAY_MS", "20000", 1);
      const std::string in = at("a.png").string(), out = at("o").string(), missing = at("missing.png").string(),
                        report = at("r.json").string();
      freopen("/dev/null", "w", stderr);
      execl(bin.c_str(), bin.c_str(), "blur", missing.c_str(), in.c_str(), "-o", out.c_str(), "-b", "cpu",
            "--io-threads", "1", "--report", report.c_str(), (char*)nullptr);
      _exit(127);
    }
    // Wait for the temporary to appear (written, held open by the test delay).
    bool seen = false;
    for (int i = 0; i < 1000 && !seen; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      seen = !leftovers(at("o")).empty();
    }
    EXPECT_TRUE(seen) << "no temporary output appeared";
    kill(pid, signal);
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 130);
    EXPECT_TRUE(leftovers(at("o")).empty()) << leftovers(at("o")).front();
    EXPECT_FALSE(fs::exists(at("o/a.png")));
    const json rep = json::parse(slurp(at("r.json")));
    const auto errors = testing::schema_errors(load_schema(), rep);
    EXPECT_TRUE(errors.empty()) << errors.front();
    EXPECT_EQ(rep["summary"]["interrupted"], true);
    // The missing input's error, and the image whose write the signal stopped, with its error.
    ASSERT_EQ(rep["images"].size(), 2u) << rep.dump();
    EXPECT_NE(rep["images"][0]["error"].get<std::string>().find("missing.png"), std::string::npos) << rep.dump();
    EXPECT_NE(rep["images"][1]["error"].get<std::string>().find("interrupted"), std::string::npos) << rep.dump();
    EXPECT_EQ(rep["summary"]["failed"], 2);
    EXPECT_EQ(rep["method"]["name"], "gauss-sep");
    EXPECT_EQ(rep["backend"]["name"], "cpu");
  }
}

// --skip-existing resumes a batch: inputs whose outputs exist are not read (status "skipped", counted apart, no
// failure), the rest are blurred; the existing outputs stay as they were. It does not go with --overwrite.
TEST_F(E2E, SkipExistingResumesABatch) {
  make_image("in/a.png", 16, 12, 3, PixelType::UInt8, 1);
  make_image("in/b.png", 16, 12, 3, PixelType::UInt8, 2);
  make_image("in/c.exr", 16, 12, 4, PixelType::Float, 3);
  const std::string in = quote(at("in").string()), out = quote(at("o").string());
  fs::create_directories(at("o"));
  std::ofstream(at("o/a.png")) << "a finished output";  // not even a PNG: it must not be read or replaced
  Result r = run("blur " + in + " -o " + out + " -b cpu");
  EXPECT_EQ(r.rc, 1) << "without the flag an existing output is an error: " << r.err;
  fs::remove(at("o/b.png"));
  fs::remove(at("o/c.exr"));
  r = run("blur " + in + " -o " + out + " -b cpu --skip-existing --report " + quote(at("r.json").string()));
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(slurp(at("o/a.png")), "a finished output");
  EXPECT_TRUE(fs::exists(at("o/b.png")));
  EXPECT_TRUE(fs::exists(at("o/c.exr")));
  json rep = json::parse(slurp(at("r.json")));
  auto errors = testing::schema_errors(load_schema(), rep);
  EXPECT_TRUE(errors.empty()) << errors.front();
  ASSERT_EQ(rep["images"].size(), 3u);
  EXPECT_EQ(rep["images"][0]["status"], "skipped");
  EXPECT_EQ(rep["images"][0]["error"], "");
  EXPECT_EQ(rep["images"][0]["timings_ms"]["read"], 0.0);
  EXPECT_EQ(rep["images"][1]["status"], "ok");
  EXPECT_EQ(rep["summary"]["skipped"], 1);
  EXPECT_EQ(rep["summary"]["failed"], 0);
  EXPECT_NE(r.err.find("1 skipped"), std::string::npos) << r.err;
  // Everything done: all skipped, exit 0; the CSV says skipped too; a merge keeps the status and the count.
  r = run("blur " + in + " -o " + out + " -b cpu --skip-existing --report " + quote(at("r2.json").string()));
  ASSERT_EQ(r.rc, 0) << r.err;
  rep = json::parse(slurp(at("r2.json")));
  EXPECT_EQ(rep["summary"]["skipped"], 3);
  EXPECT_EQ(rep["summary"]["images_per_second"], 0.0);
  r = run("blur " + in + " -o " + out + " -b cpu --skip-existing --report-format csv --report " +
          quote(at("r.csv").string()));
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(slurp(at("r.csv")).find(",skipped,"), std::string::npos) << slurp(at("r.csv"));
  r = run("report merge " + quote(at("r.json").string()) + " -o " + quote(at("m.json").string()));
  ASSERT_EQ(r.rc, 0) << r.err;
  rep = json::parse(slurp(at("m.json")));
  EXPECT_EQ(rep["images"][0]["status"], "skipped");
  EXPECT_EQ(rep["summary"]["skipped"], 1);
  EXPECT_EQ(rep["summary"]["failed"], 0);
  r = run("blur " + in + " -o " + out + " -b cpu --skip-existing --overwrite");
  EXPECT_EQ(r.rc, 2) << r.err;
  // Only a file is a finished output: a folder or a link to nothing at an output's path is that input's error,
  // said before it is read (the folder was skipped as done; the link was blurred, then refused by the rename).
  fs::remove(at("o/b.png"));
  fs::create_directories(at("o/b.png"));
  fs::remove(at("o/c.exr"));
  fs::create_symlink(at("nothing.exr"), at("o/c.exr"));
  r = run("blur " + in + " -o " + out + " -b cpu --skip-existing --report " + quote(at("r3.json").string()));
  EXPECT_EQ(r.rc, 1) << r.err;
  EXPECT_NE(r.err.find("is no file (a folder)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("is no file (a link to nothing)"), std::string::npos) << r.err;
  rep = json::parse(slurp(at("r3.json")));
  EXPECT_EQ(rep["summary"]["skipped"], 1);
  EXPECT_EQ(rep["summary"]["failed"], 2);
  EXPECT_EQ(rep["images"][2]["timings_ms"]["read"], 0.0);
  // Without the flag the link is there too: refused up front as existing, not after the blur.
  r = run("blur " + quote(at("in/c.exr").string()) + " -o " + out + " -b cpu --report " +
          quote(at("r4.json").string()));
  EXPECT_EQ(r.rc, 1) << r.err;
  EXPECT_NE(r.err.find("exists (use --overwrite"), std::string::npos) << r.err;
  EXPECT_EQ(json::parse(slurp(at("r4.json")))["images"][0]["timings_ms"]["read"], 0.0);
  EXPECT_TRUE(fs::is_symlink(at("o/c.exr")));
}

// Sub-folders a recursive run makes for its outputs do not outlive every write into them failing: one interrupted
// (its temporary removed), and one whose only image cannot be a PNG (five channels: now refused once read, so its
// folder is never made). They had stayed, empty.
TEST_F(E2E, NoEmptyOutputFoldersAreLeft) {
  make_image("in/s2/a.png", 32, 32, 3, PixelType::UInt8, 18);
  const std::string bin = gpublur::testing::gpublur_bin();
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    setenv("GPUBLUR_TEST_WRITE_DELAY_MS", "20000", 1);
    const std::string in = at("in").string(), out = at("o").string();
    freopen("/dev/null", "w", stderr);
    execl(bin.c_str(), bin.c_str(), "blur", in.c_str(), "-r", "-o", out.c_str(), "-b", "cpu", (char*)nullptr);
    _exit(127);
  }
  bool seen = false;
  for (int i = 0; i < 1000 && !seen; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    seen = fs::is_directory(at("o/s2")) && !leftovers(at("o/s2")).empty();
  }
  EXPECT_TRUE(seen) << "no temporary output appeared";
  kill(pid, SIGINT);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 130);
  EXPECT_FALSE(fs::exists(at("o/s2")));
  EXPECT_FALSE(fs::exists(at("o")));  // -o too: this run made it and wrote nothing there (as with --report)

  make_image("in2/sub/deep/five.exr", 8, 8, 5, PixelType::Float, 3);
  make_image("in2/ok.exr", 8, 8, 3, PixelType::Float, 4);
  const Result r = run("blur " + quote(at("in2").string()) + " -r -o " + quote(at("o2").string()) +
                       " -b cpu --format png --report " + quote(at("r2.json").string()));
  EXPECT_EQ(r.rc, 1) << r.err;
  EXPECT_TRUE(fs::exists(at("o2/ok.png"))) << r.err;
  EXPECT_FALSE(fs::exists(at("o2/sub"))) << r.err;
  // The five channels fail as soon as they are read, with the writer's message: nothing blurred or uploaded.
  const json rep = json::parse(slurp(at("r2.json")));
  bool found = false;
  for (const auto& im : rep["images"])
    if (im["input"].get<std::string>().find("five.exr") != std::string::npos) {
      found = true;
      EXPECT_NE(im["error"].get<std::string>().find("PNG holds 1 to 4 channels"), std::string::npos) << im.dump();
      EXPECT_EQ(im["timings_ms"]["compute"], 0.0) << im.dump();
      EXPECT_EQ(im["timings_ms"]["upload"], 0.0) << im.dump();
    }
  EXPECT_TRUE(found) << rep.dump();
}

// Started with stderr closed (`2>&-`), the first file the run opens would take descriptor 2 and the log lines
// would land in it (an output image): the closed descriptors are held on /dev/null from the start.
TEST_F(E2E, ClosedStandardDescriptorsAreHeldOnDevNull) {
  make_image("a.exr", 64, 48, 4, PixelType::Float, 21);
  int list[2];
  ASSERT_EQ(pipe(list), 0);
  const std::string bin = gpublur::testing::gpublur_bin();
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    dup2(list[0], 0);
    close(list[0]), close(list[1]);
    close(2);
    const std::string out = at("o").string();
    execl(bin.c_str(), bin.c_str(), "-v", "blur", "-", "-o", out.c_str(), "-b", "cpu", "-m", "copy",
          "--exr-compression", "none", (char*)nullptr);
    _exit(127);
  }
  close(list[0]);
  // While it waits for its list on stdin: what is its descriptor 2?
  const std::string fd2 = "/proc/" + std::to_string(pid) + "/fd/2";
  std::string target;
  for (int i = 0; i < 500 && target != "/dev/null"; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    std::error_code ec;
    target = fs::read_symlink(fd2, ec).string();
  }
  EXPECT_EQ(target, "/dev/null");
  const std::string names = at("a.exr").string() + "\n";
  ASSERT_EQ(write(list[1], names.data(), names.size()), ssize_t(names.size()));
  close(list[1]);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  const std::string written = slurp(at("o/a.exr"));
  EXPECT_EQ(written.find("gpublur:"), std::string::npos) << "a log line landed in the output";
  EXPECT_EQ(decode(at("o/a.exr")).image.data, decode(at("a.exr")).image.data);
}

// Started with stdout closed (`>&-`), a command's output (methods --json, bench's table, blur --report -) went to the
// /dev/null holding descriptor 1, and it exited 0 over the lost result; a run that writes nothing there still passes.
TEST_F(E2E, OutputToAClosedStdoutIsAFailure) {
  make_image("a.png", 8, 8, 3, PixelType::UInt8, 68);
  const std::string bin = gpublur::testing::gpublur_bin(), err = at("err.txt").string();
  auto run_closed = [&](std::vector<std::string> args) {
    const pid_t pid = fork();
    if (pid == 0) {
      close(1);
      freopen(err.c_str(), "w", stderr);
      std::vector<char*> argv{const_cast<char*>(bin.c_str())};
      for (auto& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      execv(bin.c_str(), argv.data());
      _exit(127);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) return -1;
    return WEXITSTATUS(status);
  };
  const std::vector<std::vector<std::string>> lost = {
      {"methods", "--json"},
      {"bench", "-b", "cpu", "-m", "copy", "--size", "8", "--repeat", "1", "--warmup", "0", "--warmup-ms", "0"},
      {"blur", at("a.png").string(), "-o", at("o").string(), "-b", "cpu", "--report", "-"}};
  for (const auto& args : lost) {
    SCOPED_TRACE(args[0]);
    EXPECT_EQ(run_closed(args), 1) << slurp(at("err.txt"));
    EXPECT_NE(slurp(at("err.txt")).find("stdout was closed: the command's output"), std::string::npos)
        << slurp(at("err.txt"));
  }
  EXPECT_EQ(run_closed({"blur", at("a.png").string(), "-o", at("o2").string(), "-b", "cpu"}), 0)
      << slurp(at("err.txt"));
  EXPECT_TRUE(fs::exists(at("o2/a.png")));
  // A file named for descriptor 1 is refused before the run (it was written to the /dev/null holding it, exit 0);
  // /dev/null itself is written as asked.
  for (const char* stdout_name : {"/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"}) {
    EXPECT_EQ(run_closed({"blur", at("a.png").string(), "-o", at("o3").string(), "-b", "cpu", "--report", stdout_name}),
              2)
        << stdout_name;
    EXPECT_NE(slurp(at("err.txt")).find("stdout was closed"), std::string::npos) << slurp(at("err.txt"));
    EXPECT_EQ(run_closed({"bench", "-b", "cpu", "-m", "copy", "--size", "8", "--repeat", "1", "--warmup", "0",
                          "--warmup-ms", "0", "--json", stdout_name, "-q"}),
              2)
        << stdout_name;
  }
  EXPECT_EQ(run_closed({"blur", at("a.png").string(), "-o", at("o4").string(), "-b", "cpu", "--report", "/dev/null"}),
            0)
      << slurp(at("err.txt"));
}

// The output folder moved while an output is written: that image fails (its rename finds no folder) and its temporary
// is removed from the moved folder (by its old path it stayed there, hidden).
TEST_F(E2E, OutputFolderMovedMidWriteLeavesNoTemporary) {
  make_image("in/a.png", 16, 12, 3, PixelType::UInt8, 52);
  const std::string cmd = "GPUBLUR_TEST_WRITE_DELAY_MS=1500 " + quote(gpublur::testing::gpublur_bin()) + " -q blur " +
                          quote(at("in").string()) + " -o " + quote(at("d/out").string()) +
                          " -b cpu --io-threads 1 2>" + quote(at("err.txt").string()) + " & " +
                          "for i in $(seq 200); do ls -A " + quote(at("d/out").string()) +
                          " 2>/dev/null | grep -q tmp && break; sleep 0.01; done; mv " + quote(at("d/out").string()) +
                          " " + quote(at("d/moved").string()) + "; wait $!";
  const int status = std::system(("bash -c " + quote(cmd)).c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 1) << slurp(at("err.txt"));
  EXPECT_NE(slurp(at("err.txt")).find("cannot rename"), std::string::npos) << slurp(at("err.txt"));
  ASSERT_TRUE(fs::exists(at("d/moved")));
  EXPECT_TRUE(leftovers(at("d/moved")).empty()) << leftovers(at("d/moved")).front();
}

// A log pipe that closes (`2>&1 | head`) does not stop the batch: every image is written, nothing is left behind.
TEST_F(E2E, ALogPipeThatClosesDoesNotStopTheBatch) {
  for (int i = 0; i < 6; ++i) make_image("in/p" + std::to_string(i) + ".png", 16, 12, 3, PixelType::UInt8, 30 + i);
  const std::string cmd = "GPUBLUR_TEST_WRITE_DELAY_MS=50 " + quote(gpublur::testing::gpublur_bin()) + " -v blur " +
                          quote(at("in").string()) + " -o " + quote(at("o").string()) +
                          " -b cpu --io-threads 1 2>&1 | head -c 1 >/dev/null; exit ${PIPESTATUS[0]}";
  const int status = std::system(("bash -c " + quote(cmd)).c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "141: killed by SIGPIPE";
  for (int i = 0; i < 6; ++i) EXPECT_TRUE(fs::exists(at("o/p" + std::to_string(i) + ".png"))) << i;
  EXPECT_TRUE(leftovers(at("o")).empty()) << leftovers(at("o")).front();
}

// A file-size limit (ulimit -f) fails the file that meets it, with its reason, and the run goes on: no process
// killed by SIGXFSZ with its temporary left behind.
TEST_F(E2E, AFileSizeLimitFailsThatFileOnly) {
  make_image("in/big.exr", 64, 64, 4, PixelType::Float, 40);   // 64 KiB of pixels written uncompressed
  make_image("in/small.png", 4, 4, 1, PixelType::UInt8, 41);  // well under the limit
  const std::string cmd = "ulimit -f 16; exec " + quote(gpublur::testing::gpublur_bin()) + " blur " +
                          quote(at("in").string()) + " -o " + quote(at("o").string()) +
                          " -b cpu -m copy --exr-compression none --report " + quote(at("r.json").string()) +
                          " 2>" + quote(at("err.txt").string());
  const int status = std::system(("bash -c " + quote(cmd)).c_str());
  ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 1);
  EXPECT_NE(slurp(at("err.txt")).find("File too large"), std::string::npos) << slurp(at("err.txt"));
  EXPECT_FALSE(fs::exists(at("o/big.exr")));
  EXPECT_TRUE(fs::exists(at("o/small.png")));
  EXPECT_TRUE(leftovers(at("o")).empty()) << leftovers(at("o")).front();
  const json rep = json::parse(slurp(at("r.json")));
  EXPECT_EQ(rep["summary"]["failed"], 1);
}

// Reports through a link land in its target (the link stays); stdin that cannot be read is an error, not an empty
// list; an output name near NAME_MAX is written (its temporary's name is cut to fit).
TEST_F(E2E, ReportLinksUnreadableStdinAndLongNames) {
  const std::string stem(250, 'n');
  make_image("in/" + stem + ".png", 8, 6, 3, PixelType::UInt8, 42);
  fs::create_directories(at("reports"));
  fs::create_symlink(at("reports/r.json"), at("link.json"));
  Result r = run("blur " + quote(at("in").string()) + " -o " + quote(at("o").string()) + " -b cpu --report " +
                 quote(at("link.json").string()));
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_TRUE(fs::exists(at("o/" + stem + ".png")));
  EXPECT_TRUE(fs::is_symlink(at("link.json")));
  EXPECT_EQ(json::parse(slurp(at("reports/r.json")))["summary"]["images"], 1);
  r = run("report merge " + quote(at("reports/r.json").string()) + " -o " + quote(at("link.json").string()));
  EXPECT_EQ(r.rc, 2) << "the link names the input report: " << r.err;
  fs::create_symlink(at("reports/merged.json"), at("merged-link.json"));
  r = run("report merge " + quote(at("reports/r.json").string()) + " -o " + quote(at("merged-link.json").string()));
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_TRUE(fs::is_symlink(at("merged-link.json")));
  EXPECT_EQ(json::parse(slurp(at("reports/merged.json")))["summary"]["images"], 1);
  const std::string cmd = quote(gpublur::testing::gpublur_bin()) + " blur - -o " + quote(at("o2").string()) +
                          " -b cpu <" + quote(at("in").string()) + " 2>" + quote(at("err.txt").string());
  const int status = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 2);
  EXPECT_NE(slurp(at("err.txt")).find("cannot read the list of inputs from stdin"), std::string::npos)
      << slurp(at("err.txt"));
  // A closed stdin (`<&-`) is not an empty list either (it had run no image, exit 0, and made the folder).
  const std::string closed = quote(gpublur::testing::gpublur_bin()) + " blur - -o " + quote(at("o3").string()) +
                             " -b cpu <&- 2>" + quote(at("err.txt").string());
  const int closed_status = std::system(closed.c_str());
  ASSERT_TRUE(WIFEXITED(closed_status));
  EXPECT_EQ(WEXITSTATUS(closed_status), 2) << slurp(at("err.txt"));
  EXPECT_NE(slurp(at("err.txt")).find("cannot read the list of inputs from stdin: it is closed"), std::string::npos)
      << slurp(at("err.txt"));
  EXPECT_FALSE(fs::exists(at("o3")));
}

// A process limit (ulimit -u) that refuses threads: fewer threads, or one clear error; never an abort. The limit
// counts the threads libraries start before main (the OIIO build's log4cplus starts one), so the test first finds
// the smallest limit under which the binary runs at all.
TEST_F(E2E, AThreadLimitIsNeverAnAbort) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to run the binary as another user, whose processes the limit counts";
  make_image("in/a.png", 40, 30, 3, PixelType::UInt8, 43);
  fs::permissions(dir_, fs::perms::all);
  fs::permissions(at("in"), fs::perms::all);
  const std::string bin = gpublur::testing::gpublur_bin(), err = at("err.txt").string();
  // Runs the binary as nobody under RLIMIT_NPROC `nproc`; its wait status.
  auto run_limited = [&](int nproc, std::vector<std::string> args) {
    const pid_t pid = fork();
    if (pid == 0) {
      freopen(err.c_str(), "w", stderr);
      const rlimit lim{rlim_t(nproc), rlim_t(nproc)};
      if (setgid(65534) != 0 || setuid(65534) != 0 || setrlimit(RLIMIT_NPROC, &lim) != 0) _exit(126);
      std::vector<char*> argv{const_cast<char*>(bin.c_str())};
      for (auto& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      execv(bin.c_str(), argv.data());
      _exit(127);
    }
    int status = -1;
    waitpid(pid, &status, 0);
    return status;
  };
  int base = 1;  // the process and whatever its libraries start before main
  while (base < 8 && !WIFEXITED(run_limited(base, {"--version"}))) ++base;
  ASSERT_LT(base, 8) << slurp(err);
  // At `base` not even the I/O threads start: one error. Three more (the interrupt thread, a reader and a writer)
  // run the batch, the CPU backend's rows on fewer threads than --threads asks.
  for (const int nproc : {base, base + 3}) {
    SCOPED_TRACE("RLIMIT_NPROC " + std::to_string(nproc) + ", " + std::to_string(base) + " before main");
    const std::string out = at("o" + std::to_string(nproc)).string();
    const int status = run_limited(nproc, {"blur", at("in").string(), "-o", out, "-b", "cpu", "--io", "lean",
                                           "--io-threads", "1", "--threads", "4"});
    const std::string said = slurp(err);
    ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << WTERMSIG(status) << "\n" << said;
    EXPECT_EQ(said.find("terminate called"), std::string::npos) << said;
    if (nproc == base) {
      EXPECT_EQ(WEXITSTATUS(status), 1) << said;
      EXPECT_NE(said.find("cannot start the I/O threads"), std::string::npos) << said;
    } else {
      EXPECT_EQ(WEXITSTATUS(status), 0) << said;
      EXPECT_TRUE(fs::exists(out + "/a.png")) << said;
    }
  }
}

TEST_F(E2E, BenchOnCpuPrintsTableAndJson) {
  const Result r = run("bench -b cpu --method gauss-sep,gauss-2d --sigma 1,2 --size 32,40x24 --channels 2 "
                       "--repeat 3 --warmup 1 --border wrap --json " + quote(at("b.json").string()));
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("copy"), std::string::npos);
  EXPECT_NE(r.out.find("x copy"), std::string::npos);
  const json j = json::parse(slurp(at("b.json")));
  ASSERT_EQ(j["cases"].size(), 2u * (1 + 2 * 2));
  EXPECT_EQ(j["cases"][0]["method"], "copy");
  EXPECT_EQ(j["cases"][5]["method"], "copy");
  EXPECT_EQ(j["cases"][5]["width"], 40);
  for (const auto& c : j["cases"]) {
    EXPECT_EQ(c["status"], "ok");
    EXPECT_EQ(c["times_ms"].size(), 3u);
    EXPECT_EQ(c["params"]["border"], "wrap");
    EXPECT_GT(c["ratio_to_copy"].get<double>(), 0);
  }
  EXPECT_EQ(j["backend"]["timer_clock"], "host-clock");
  EXPECT_EQ(j["backend"]["storage"], "float32");
}

// --channels takes a list (1,4 was refused as out of range). GL stores one channel as R32F and four as RGBA32F: the
// table's header and the JSON's backend name both, each case its own.
TEST_F(E2E, BenchTakesChannelCountsAndNamesEachStorage) {
  const Result r = run("bench -b gl -m box --size 8 --channels 1,4 --repeat 1 --warmup 0 --warmup-ms 0 --json " +
                       quote(at("b.json").string()));
  if (r.rc != 0 && (r.err.find("EGL") != std::string::npos || r.err.find(kNotBuiltIn) != std::string::npos))
    GTEST_SKIP() << "no GL here: " << r.err;
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("storage r32f (1 channel), rgba32f (4 channels)\n"), std::string::npos) << r.out;
  const json j = json::parse(slurp(at("b.json")));
  ASSERT_EQ(j["cases"].size(), 4u);
  const char* storage[] = {"r32f", "r32f", "rgba32f", "rgba32f"};
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(j["cases"][i]["channels"], i < 2 ? 1 : 4);
    EXPECT_EQ(j["cases"][i]["storage"], storage[i]);
    EXPECT_EQ(j["cases"][i]["status"], "ok");
  }
  EXPECT_EQ(j["backend"]["storage"], "r32f (1 channel), rgba32f (4 channels)");
  EXPECT_EQ(j["settings"]["channels"], json::array({1, 4}));
  EXPECT_EQ(j["settings"]["bytes_per_value"], 4);
  // The copy runs for no sigma: its params hold none (they held the first of the list).
  EXPECT_FALSE(j["cases"][0]["params"].contains("sigma")) << j["cases"][0].dump();
  // One storage for several counts is named once with them (rgba32f was listed for 3 and again for 4); half storage
  // is 2 bytes a value, in GB/s too (they counted 4), and GB/s counts the values stored (rgba for three channels).
  const Result h = run("bench -b gl -m box --size 8 --channels 1,3,4 --gl-storage rgba16f --repeat 1 --warmup 0 "
                       "--warmup-ms 0 --json " + quote(at("h.json").string()));
  ASSERT_EQ(h.rc, 0) << h.err;
  const json k = json::parse(slurp(at("h.json")));
  EXPECT_EQ(k["backend"]["storage"], "r16f (1 channel), rgba16f (3, 4 channels)");
  EXPECT_EQ(k["settings"]["bytes_per_value"], 2);
  for (const json& c : k["cases"]) {  // (three channels are stored, and moved, as four)
    const double bytes = 2.0 * 8 * 8 * (c["channels"] == 3 ? 4 : c["channels"].get<int>()) * 2;
    EXPECT_NEAR(c["gbps"].get<double>(), bytes / (c["median_ms"].get<double>() * 1e-3) / 1e9,
                1e-6 * c["gbps"].get<double>())
        << c.dump();
  }
}

// A method parameter's placeholder in the help is its type's, or NUMBER where methods declare it with different
// types (box --width is an integer, integral's a real number).
TEST_F(E2E, HelpPlaceholdersFollowTheRegistry) {
  const Result r = run("blur --help");
  ASSERT_EQ(r.rc, 0) << r.err;
  for (const char* want : {"--width NUMBER", "--passes INT", "--sigma-range FLOAT", "--kernel FILE", "--impl CHOICE"})
    EXPECT_NE(r.out.find(want), std::string::npos) << want << "\n" << r.out;
}

// A result stdout cannot take (a full disk) is an error, never exit 0; bench's --json file is checked before the
// bench runs, not after.
TEST_F(E2E, LostStdoutFailsAndBenchJsonIsCheckedFirst) {
  if (::access("/dev/full", W_OK) != 0) GTEST_SKIP() << "no writable /dev/full here";
  for (const std::string args : {"methods --json", "methods", "bench -b cpu -m copy --size 8 --repeat 1 --json -",
                                 "quality -b cpu -m box --size 16 --json", "--help", "--version", "blur --help"}) {
    const std::string cmd = quote(gpublur::testing::gpublur_bin()) + " " + args + " >/dev/full 2>" +
                            quote(at("err.txt").string());
    const int status = std::system(cmd.c_str());
    ASSERT_TRUE(WIFEXITED(status)) << args;
    EXPECT_EQ(WEXITSTATUS(status), 1) << args;
    EXPECT_NE(slurp(at("err.txt")).find("cannot write to stdout"), std::string::npos) << args;
  }
  for (const std::string where : {at("no/such/folder/b.json").string(), dir_.string()}) {
    const Result r = run("bench -b cpu -m box --size 8 --repeat 1 --json " + quote(where));
    EXPECT_EQ(r.rc, 2) << r.err;
    EXPECT_NE(r.err.find("--json " + where), std::string::npos) << r.err;
    EXPECT_EQ(r.out.find("box"), std::string::npos) << "the bench ran first:\n" << r.out;
  }
  // An empty name quietly wrote nothing.
  Result r = run("bench -b cpu -m box --size 8 --repeat 1 --json ''");
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_NE(r.err.find("--json: an empty name"), std::string::npos) << r.err;
  r = run("blur " + quote(at("none.png").string()) + " -o " + quote(at("o").string()) + " -b cpu --report ''");
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_NE(r.err.find("--report: an empty name"), std::string::npos) << r.err;
}

// This machine has the CUDA toolkit but no device: one clear error line, a non-zero exit, no crash.
// A run refused before any image leaves no output folder it made (here: a report in a folder that does not
// exist), and one that existed stays.
TEST_F(E2E, ARefusedRunLeavesNoFolderItMade) {
  make_image("a.png", 8, 8, 3, PixelType::UInt8, 19);
  const std::string report = " --report " + quote(at("nowhere/r.json").string());
  Result r = run("blur " + quote(at("a.png").string()) + " -o " + quote(at("o/deep/er").string()) + " -b cpu" + report);
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_FALSE(fs::exists(at("o")));
  fs::create_directories(at("kept"));
  r = run("blur " + quote(at("a.png").string()) + " -o " + quote(at("kept/new").string()) + " -b cpu" + report);
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_TRUE(fs::is_directory(at("kept")));
  EXPECT_FALSE(fs::exists(at("kept/new")));
  // The reason a folder could not be made is the system's (here: sysfs refuses it, even to root), not a guess.
  const std::string refused = "/sys/gpublur-e2e-no-such-folder";
  if (!fs::exists(refused)) {
    r = run("blur " + quote(at("a.png").string()) + " -o " + refused + " -b cpu");
    EXPECT_EQ(r.rc, 2) << r.err;
    EXPECT_NE(r.err.find("cannot create output folder " + refused + ": "), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("not a folder"), std::string::npos) << r.err;
  }
}

// An output folder that exists but takes no files is a usage error before any image is read (every image had been
// read and blurred, then each write failed). Root may write anywhere, so as root the run is nobody's.
TEST_F(E2E, AnUnwritableOutputFolderIsRefusedFirst) {
  make_image("in/a.png", 8, 8, 3, PixelType::UInt8, 19);
  fs::create_directories(at("ro"));
  fs::permissions(dir_, fs::perms::all);
  fs::permissions(at("in"), fs::perms::all);
  fs::permissions(at("ro"), fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read |
                                fs::perms::group_exec | fs::perms::others_read | fs::perms::others_exec);
  const std::string bin = gpublur::testing::gpublur_bin(), err = at("err.txt").string();
  const pid_t pid = fork();
  if (pid == 0) {
    freopen(err.c_str(), "w", stderr);
    if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0)) _exit(126);
    const std::string in = at("in").string(), out = at("ro").string();
    execl(bin.c_str(), bin.c_str(), "blur", in.c_str(), "-o", out.c_str(), "-b", "cpu", static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = -1;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  const std::string said = slurp(err);
  EXPECT_EQ(WEXITSTATUS(status), 2) << said;
  EXPECT_NE(said.find("cannot write into output folder " + at("ro").string() + ": Permission denied"),
            std::string::npos)
      << said;
  EXPECT_EQ(said.find("a.png"), std::string::npos) << "no image was read: " << said;
  EXPECT_TRUE(fs::is_empty(at("ro")));
}

TEST_F(E2E, CudaWithoutDeviceIsOneClearError) {
  make_image("a.png", 8, 8, 3, PixelType::UInt8, 19);
  const Result r = run("blur " + quote(at("a.png").string()) + " -o " + quote(at("o/new").string()) + " -b cuda");
  if (r.rc == 0) GTEST_SKIP() << "a CUDA device is present here";
  if (r.err.find(kNotBuiltIn) != std::string::npos) GTEST_SKIP() << "built without CUDA";
  EXPECT_EQ(r.rc, 1) << "exit " << r.rc << " (-1 = killed by a signal)\n" << r.err;
  EXPECT_FALSE(fs::exists(at("o"))) << "the output folders -o made are left behind";
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find("error"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("CUDA"), std::string::npos) << r.err;
  const Result b = run("bench -b cuda --size 16 --repeat 1");
  EXPECT_EQ(b.rc, 1) << b.err;
}

}  // namespace
}  // namespace gpublur
