// Inputs that crash MLIR's own text parser, found by fuzzing, refused with a
// located error before the parser sees them (see ParserGuards.h).
//
// MLIR 22.1 (AttributeParser.cpp, Parser::parseDenseArrayAttr) admits any
// element type for which isIntOrIndexOrFloat() holds, then asks
// getIntOrFloatBitWidth(), which casts `index` to FloatType: with
// assertions off (Debian's libmlir-22-dev) that reads through a null
// interface and the process dies. `array<index>`, `array<index: 1>` and a
// truncated `array<index` all do; so does `array<!t>` after `!t = index`.
// Later MLIR refuses non-int/float element types before asking the width.
// Dense arrays of index are never valid, so refusing them loses nothing.
#include "xpu/ParserGuards.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "llvm/ADT/StringMap.h"

#include <cctype>

using namespace mlir;

namespace xpu {

namespace {

/// A tokenizer for just enough of MLIR's lexical syntax to see the
/// `array` keyword and type aliases: comments and strings are skipped.
class Scanner {
public:
  explicit Scanner(StringRef text) : text(text) {}

  bool done() {
    skipTrivia();
    return pos >= text.size();
  }

  /// The next token: a bare identifier, a prefixed one (`!x`, `%x`, `@x`,
  /// `#x`, `^x`), a string (skipped, returned empty), or one character.
  StringRef next() {
    skipTrivia();
    start = pos;
    if (pos >= text.size())
      return {};
    char c = text[pos];
    if (c == '"') {
      for (++pos; pos < text.size() && text[pos] != '"'; ++pos)
        if (text[pos] == '\\')
          ++pos;
      ++pos;
      return {};
    }
    if (isIdStart(c) || (isPrefix(c) && pos + 1 < text.size() &&
                         isIdChar(text[pos + 1]))) {
      ++pos;
      while (pos < text.size() && (isIdChar(text[pos]) || text[pos] == '-'))
        ++pos;
      return text.slice(start, pos);
    }
    ++pos;
    return text.slice(start, pos);
  }

  size_t tokenStart() const { return start; }

private:
  static bool isIdStart(char c) { return std::isalpha((unsigned char)c) || c == '_'; }
  static bool isIdChar(char c) {
    return std::isalnum((unsigned char)c) || c == '_' || c == '$' || c == '.';
  }
  static bool isPrefix(char c) {
    return c == '!' || c == '%' || c == '@' || c == '#' || c == '^';
  }

  void skipTrivia() {
    while (pos < text.size()) {
      if (std::isspace((unsigned char)text[pos])) {
        ++pos;
      } else if (text.substr(pos).starts_with("//")) {
        while (pos < text.size() && text[pos] != '\n')
          ++pos;
      } else {
        return;
      }
    }
  }

  StringRef text;
  size_t pos = 0, start = 0;
};

Location locationAt(MLIRContext &ctx, StringRef text, StringRef sourceName,
                    size_t offset) {
  StringRef before = text.take_front(offset);
  unsigned line = 1 + before.count('\n');
  size_t lineStart = before.rfind('\n');
  unsigned col = 1 + (lineStart == StringRef::npos ? offset : offset - lineStart - 1);
  return FileLineColLoc::get(&ctx, sourceName, line, col);
}

} // namespace

LogicalResult refuseParserCrashers(MLIRContext &ctx, StringRef text,
                                   StringRef sourceName) {
  // Type aliases (`!name = TYPE`), by the first token of their type; and
  // each dense array's element type, by its first token.
  llvm::StringMap<std::string> aliases;
  SmallVector<std::pair<std::string, size_t>> elementTypes;
  Scanner s(text);
  while (!s.done()) {
    StringRef tok = s.next();
    if (tok.starts_with("!")) {
      Scanner look = s;
      if (look.next() == "=") {
        StringRef target = look.next();
        if (!target.empty())
          aliases[tok] = target.str();
      }
    } else if (tok == "array") {
      Scanner look = s;
      if (look.next() == "<") {
        StringRef elem = look.next();
        elementTypes.emplace_back(elem.str(), look.tokenStart());
      }
    }
  }

  bool refused = false;
  for (auto &[elem, offset] : elementTypes) {
    std::string type = elem;
    for (int hops = 0; hops < 64 && aliases.count(type); ++hops)
      type = aliases[type];
    if (type != "index")
      continue;
    emitError(locationAt(ctx, text, sourceName, offset))
        << "a dense array's elements must be integers or floats, not 'index'";
    refused = true;
  }
  return failure(refused);
}

} // namespace xpu
