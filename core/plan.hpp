// A resolved method plan: everything a backend needs to execute a method, with every parameter decided.
// Backends execute plans; they never pick parameters themselves.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "core/border.hpp"
#include "core/status.hpp"

namespace gpublur {

struct Plan {
  std::string method;   // registry name
  Border border = Border::Clamp;
  double sigma = 0;     // requested
  int radius = 0;       // resolved
  // Normalised 1D Gaussian for offsets -radius..radius (index k + radius); gauss-2d uses the outer product.
  std::vector<float> weights;
  // gauss-linear: non-negative half of the bilinear taps (see core/gauss.hpp, linear_taps).
  std::vector<float> tap_offsets;
  std::vector<float> tap_weights;
  double effective_sigma = 0;  // standard deviation of the kernel actually applied
  // Every registry parameter with its resolved textual value (what the report prints).
  std::map<std::string, std::string> params;

  const std::string& param(const std::string& name) const;  // resolved value; throws if not declared
};

// Validates `given` (name -> text) against the registry entry of `method` and fills `out`.
// Errors name the parameter and the allowed range or choices: they are usage errors.
Status resolve_plan(const std::string& method, const std::map<std::string, std::string>& given, Plan& out);

}  // namespace gpublur
