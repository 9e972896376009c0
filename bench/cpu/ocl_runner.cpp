// pocl through the OpenCL ICD loader; see ocl_runner.h.
#define CL_TARGET_OPENCL_VERSION 120
#include "ocl_runner.h"

#include <CL/cl.h>

#include <cstdio>
#include <cstdlib>
#include <map>

namespace cpubench::ocl {

namespace {

cl_context context;
cl_command_queue queue;
cl_program program;
cl_device_id device;
std::map<std::string, cl_kernel> kernels;

void check(cl_int err, const char *what) {
  if (err != CL_SUCCESS) {
    std::fprintf(stderr, "OpenCL: %s failed: %d\n", what, err);
    std::exit(1);
  }
}

cl_kernel kernel(const char *name) {
  auto it = kernels.find(name);
  if (it != kernels.end())
    return it->second;
  cl_int err;
  cl_kernel k = clCreateKernel(program, name, &err);
  check(err, name);
  return kernels[name] = k;
}

} // namespace

bool open(const char *source, std::string &why) {
  cl_uint n = 0;
  if (clGetPlatformIDs(0, nullptr, &n) != CL_SUCCESS || n == 0) {
    why = "no OpenCL platform (install pocl-opencl-icd)";
    return false;
  }
  std::vector<cl_platform_id> platforms(n);
  clGetPlatformIDs(n, platforms.data(), nullptr);
  cl_platform_id pocl = nullptr;
  for (cl_platform_id p : platforms) {
    char name[256] = {};
    clGetPlatformInfo(p, CL_PLATFORM_NAME, sizeof name, name, nullptr);
    if (std::string(name).find("Portable Computing Language") != std::string::npos)
      pocl = p;
  }
  if (!pocl) {
    why = "no pocl platform among the OpenCL platforms";
    return false;
  }
  if (clGetDeviceIDs(pocl, CL_DEVICE_TYPE_CPU, 1, &device, nullptr) != CL_SUCCESS) {
    why = "pocl has no CPU device";
    return false;
  }
  cl_int err;
  context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &err);
  check(err, "clCreateContext");
  queue = clCreateCommandQueue(context, device, 0, &err);
  check(err, "clCreateCommandQueue");
  program = clCreateProgramWithSource(context, 1, &source, nullptr, &err);
  check(err, "clCreateProgramWithSource");
  if (clBuildProgram(program, 1, &device, "", nullptr, nullptr) != CL_SUCCESS) {
    char log[16384] = {};
    clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, sizeof log, log, nullptr);
    std::fprintf(stderr, "pocl build failed:\n%s\n", log);
    std::exit(1);
  }
  return true;
}

std::string deviceName() {
  char name[256] = {}, version[256] = {};
  clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof name, name, nullptr);
  clGetDeviceInfo(device, CL_DRIVER_VERSION, sizeof version, version, nullptr);
  return std::string(name) + ", pocl " + version;
}

Buffer upload(const void *data, size_t bytes) {
  cl_int err;
  cl_mem m = clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes,
                            const_cast<void *>(data), &err);
  check(err, "clCreateBuffer");
  return {m, bytes};
}

void download(const Buffer &b, void *data) {
  check(clEnqueueReadBuffer(queue, cl_mem(b.mem), CL_TRUE, 0, b.bytes, data, 0, nullptr,
                            nullptr),
        "clEnqueueReadBuffer");
}

void release(Buffer &b) {
  if (b.mem)
    clReleaseMemObject(cl_mem(b.mem));
  b.mem = nullptr;
}

void launch(const char *name, unsigned dims, const size_t *global, const size_t *local,
            const std::vector<Arg> &args) {
  cl_kernel k = kernel(name);
  for (size_t i = 0; i < args.size(); ++i) {
    const Arg &a = args[i];
    cl_mem m = a.buffer ? cl_mem(a.buffer->mem) : nullptr;
    check(a.buffer ? clSetKernelArg(k, cl_uint(i), sizeof m, &m)
                   : clSetKernelArg(k, cl_uint(i), a.size, a.value),
          "clSetKernelArg");
  }
  check(clEnqueueNDRangeKernel(queue, k, dims, nullptr, global, local, 0, nullptr, nullptr),
        name);
}

void finish() { check(clFinish(queue), "clFinish"); }

} // namespace cpubench::ocl
