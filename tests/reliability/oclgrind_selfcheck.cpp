// A deliberately broken kernel (a data race and an out-of-bounds write), run under the same Oclgrind
// harness as clsort's kernels: the harness must see reports here, or its silence on clsort means nothing.
#include <CL/opencl.hpp>

#include <cstdio>

int main() {
  const char* source = R"(
    kernel void broken(global uint* out, uint n) {
      out[0] = get_global_id(0);  // every work-item writes the same word: a write-write race
      out[n + get_global_id(0)] = 1;  // past the end of the buffer
    })";
  try {
    std::vector<cl::Platform> platforms;
    cl::Platform::get(&platforms);
    std::vector<cl::Device> devices;
    platforms.at(0).getDevices(CL_DEVICE_TYPE_ALL, &devices);
    cl::Context context(devices.at(0));
    cl::CommandQueue queue(context, devices.at(0));
    cl::Program program(context, source, true);
    cl::Buffer out(context, CL_MEM_READ_WRITE, 16 * 4);
    cl::Kernel k(program, "broken");
    k.setArg(0, out);
    k.setArg(1, cl_uint(16));
    queue.enqueueNDRangeKernel(k, cl::NullRange, cl::NDRange(16), cl::NDRange(16));
    queue.finish();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "OpenCL error: %s\n", e.what());
    return 1;
  }
  return 0;
}
