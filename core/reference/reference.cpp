// The CPU reference: the plan's program run by the CPU primitives (core/reference/passes/).
#include "core/reference/reference.hpp"

#include "core/reference/pass_table.hpp"

namespace gpublur {

Status reference_run(const Plan& plan, const Image& src, Image& dst, int threads) {
  return run_program_cpu(plan.program, src, dst, threads);
}

}  // namespace gpublur
