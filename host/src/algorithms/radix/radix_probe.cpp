// The device probe (DeviceFacts::probe): what the radix fit learns of a device by building for it, whether
// the multisplit ranking's sub-group primitives answer as the ranking assumes (kernels/radix_sg_probe.cl;
// fit_radix chose them from the extensions), and how much the pass kernel of a plan spills to private
// memory (fit_radix_registers takes keys per work-item off a derived tile while it does).
#include <algorithm>
#include <map>
#include <mutex>
#include <vector>

#include "algorithms/radix/radix.hpp"
#include "engine/program_cache.hpp"

namespace clsort::detail {

namespace {

constexpr unsigned kProbeWords = 8;  // RADIX_PROBE_WORDS

// What the probe's work-items reported, against what the primitives promise for `lanes` lanes per
// sub-group and `wg` work-items. Local ids map to (sub-group, lane) as the device likes, but one to one.
bool answers_hold(const std::vector<cl_uint>& out, unsigned wg, unsigned lanes) {
  const unsigned groups = wg / lanes;
  std::vector<int> id_of(wg, -1);  // local id at sub-group * lanes + lane
  for (unsigned lid = 0; lid < wg; ++lid) {
    const cl_uint lane = out[lid * kProbeWords], sg = out[lid * kProbeWords + 1];
    if (lane >= lanes || sg >= groups || id_of[sg * lanes + lane] != -1) return false;
    id_of[sg * lanes + lane] = int(lid);
  }
  cl_uint scanned = 0;
  for (unsigned lid = 0; lid < wg; ++lid) {
    const cl_uint* o = &out[lid * kProbeWords];
    const unsigned lane = o[0], sg = o[1];
    const std::uint64_t below = o[2] | std::uint64_t(o[3]) << 32;
    if (below != (std::uint64_t(1) << lane) - 1) return false;
    std::uint64_t voted = 0;
    for (unsigned l = 0; l < lanes; ++l)
      if ((l * 7 + sg) % 3 == 0) voted |= std::uint64_t(1) << l;
    if ((o[4] | std::uint64_t(o[5]) << 32) != voted) return false;
    if (o[6] != cl_uint(id_of[sg * lanes + (lane + 1) % lanes])) return false;
    if (o[7] != scanned) return false;
    scanned += lid % 5 + 1;
  }
  return true;
}

bool run_probe(const cl::Context& context, const cl::Device& device, const cl::Program& program,
               const RadixPolicy& r) {
  cl_int status = CL_SUCCESS;
  cl::Kernel kernel(program, "radix_sg_probe", &status);
  if (status != CL_SUCCESS) return false;
  std::vector<cl_uint> out(std::size_t(r.wg) * kProbeWords, 0xDEADBEEFu);
  cl::Buffer buffer(context, CL_MEM_READ_WRITE, out.size() * 4, nullptr, &status);
  if (status != CL_SUCCESS) return false;
  cl::CommandQueue queue(context, device, 0, &status);  // not the caller's: nothing of theirs to wait for
  if (status != CL_SUCCESS) return false;
  if (kernel.setArg(0, buffer) != CL_SUCCESS) return false;
  if (queue.enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(r.wg), cl::NDRange(r.wg)) != CL_SUCCESS)
    return false;
  if (queue.enqueueReadBuffer(buffer, CL_TRUE, 0, out.size() * 4, out.data()) != CL_SUCCESS) return false;
  return answers_hold(out, r.wg, r.sg_size);
}

// Sub-group primitives, per device and primitives for the whole process, like Onesweep's self-test: a
// property of the device and its compiler. A build that fails (a compiler refusing the PTX or the
// attribute) or a launch the device refuses counts as a failed test. Keyed by the program too, whose
// source a development kernel directory may change.
bool subgroups_pass(const cl::Context& context, const cl::Device& device, const RadixPolicy& r) {
  if (!r.match || (r.subgroups != 1 && r.subgroups != 2)) return true;  // local memory needs no test
  static std::mutex mutex;
  static std::map<std::pair<cl_device_id, cl_program>, bool> results;
  const std::vector<std::string> files = {"common.cl", "radix_common.cl",
                                          r.subgroups == 1 ? "radix_sg_ptx.cl" : "radix_sg_khr.cl",
                                          "radix_sg_probe.cl"};
  Defines defines;
  defines.set("KEY_BITS", 32).set("VALUE_BYTES", 0).set("RADIX_WG", r.wg);
  if (r.subgroups == 2) defines.set("RADIX_SG", r.sg_size).set("RADIX_SG_REQUIRED", 1);
  cl::Program program;
  try {
    program = get_program(context, device, files, defines.options());
  } catch (const Error&) {
    return false;  // not cached: the program cache retries a failed build, and so may this
  }
  const auto key = std::make_pair(device(), program());
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (auto found = results.find(key); found != results.end()) return found->second;
  }
  bool ok = false;
  try {
    ok = run_probe(context, device, program, r);
  } catch (const Error&) {
    ok = false;
  }
  std::lock_guard<std::mutex> lock(mutex);
  return results.emplace(key, ok).first->second;
}

class OpenClProbe final : public DeviceProbe {
 public:
  OpenClProbe(cl::Context context, cl::Device device)
      : context_(std::move(context)), device_(std::move(device)) {}

  bool subgroups_work(const RadixPolicy& radix) const override {
    return subgroups_pass(context_, device_, radix);
  }

  // A compiler that cannot keep a work-item's keys, places and destinations in registers reports private
  // memory (CL_KERNEL_PRIVATE_MEM_SIZE). The program cache keeps the build for the sort that needs it.
  std::optional<std::uint64_t> pass_private_bytes(const RadixPlan& plan) const override {
    std::vector<std::string> files{"common.cl"};
    files.insert(files.end(), plan.program.files.begin(), plan.program.files.end());
    cl_ulong spill = 0;
    try {
      const cl::Program program =
          get_program(context_, device_, files, plan.program.defines.options(), plan.program.register_cap);
      cl_int status = CL_SUCCESS;
      const cl::Kernel kernel(
          program, plan.shape == RadixPlan::Shape::onesweep ? "radix_onesweep" : "radix_scatter", &status);
      if (status != CL_SUCCESS ||
          kernel.getWorkGroupInfo(device_, CL_KERNEL_PRIVATE_MEM_SIZE, &spill) != CL_SUCCESS)
        return std::nullopt;
    } catch (const Error&) {
      return std::nullopt;  // the sort's own build reports it, where a sort needs this program
    }
    return spill;
  }

 private:
  cl::Context context_;
  cl::Device device_;
};

}  // namespace

std::shared_ptr<const DeviceProbe> make_device_probe(const cl::Context& context, const cl::Device& device) {
  return std::make_shared<OpenClProbe>(context, device);
}

}  // namespace clsort::detail
