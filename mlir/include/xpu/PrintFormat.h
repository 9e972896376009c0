// printf in kernels: the format strings xpu.printf accepts, the records a
// kernel writes to its print buffer, and how the runtime prints them.
// Plain C++ (no MLIR), shared by the compiler and the runtime.
#pragma once

#include "xpu/KernelABI.h"

#include <cstdint>
#include <string>
#include <vector>

namespace xpu::abi {

/// A piece of a format: literal text, or one conversion (`spec` is its
/// text from '%' to the conversion character, without length modifiers).
struct PrintPiece {
  std::string text;
  char conversion = 0; ///< 0 for literal text
};

/// Splits `format` into pieces; false with `error` for what C's printf
/// conversions this one does not take (`*` widths, %n, %s, %p, ...).
bool parsePrintFormat(const std::string &format, std::vector<PrintPiece> &pieces,
                      std::string &error);
bool isFloatConversion(char c);

/// The print buffer: a buffer of u32 words. Word 0 is the cursor (words of
/// records reserved), word 1 the count of records dropped because they did
/// not fit, words 2-3 are zero; records follow from word kPrintHeaderWords:
/// 1 + site index, then each value in one word (up to 32 bits; floats of 16
/// bits widened to f32) or two (64 bits, low word first).
constexpr uint32_t kPrintHeaderWords = 4;
/// The bytes of the buffer the runtime gives each launch that prints.
constexpr uint32_t kPrintBufferBytes = 1u << 20;
constexpr uint32_t printValueWords(Scalar s) { return scalarBytes(s) == 8 ? 2 : 1; }

/// Formats the records of a print buffer read back from the device, in
/// order, into `out`; returns the number of records dropped (word 1).
/// Records it cannot decode end the output with a note saying so.
uint32_t formatPrintRecords(const std::vector<PrintSite> &sites, const uint32_t *words,
                            size_t wordCount, std::string &out);

} // namespace xpu::abi
