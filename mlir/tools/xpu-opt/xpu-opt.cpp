// xpu-opt: runs xpu passes on MLIR text, for lit tests of each pass alone.
#include "xpu/Pipeline.h"
#include "xpu/Transforms/Passes.h"

#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/SPIRV/Transforms/Passes.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  xpu::registerDialects(registry);
  xpu::registerXPUPasses();
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  mlir::registerPass([] { return mlir::createReconcileUnrealizedCastsPass(); });
  mlir::registerPass([] { return mlir::createSCFToControlFlowPass(); });
  mlir::spirv::registerSPIRVUpdateVCEPass();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "xpu optimizer driver\n", registry));
}
