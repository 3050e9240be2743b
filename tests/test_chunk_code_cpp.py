"""C and C++ chunking: C++ headers get the C++ grammar, library macros do not hide the
definitions they decorate, a stretch the grammar cannot parse still yields its definitions, and
the statement runs that conditional compilation cuts apart are read as one passage."""

from __future__ import annotations

from ctxmill.index.chunk_code import chunk_file


def chunks(path: str, src: str):
    return chunk_file(path, src.encode(), src)


def exact(src: str, c) -> bool:
    """A chunk's text is exactly its lines of the file."""
    return c.text == "\n".join(src.split("\n")[c.start_line - 1 : c.end_line])


CPP_HEADER = """\
#ifndef LIB_FORMAT_H_
#define LIB_FORMAT_H_

#include <string>

LIB_BEGIN_NAMESPACE

// Formats one argument.
template <typename T> class formatter {
 public:
  LIB_CONSTEXPR auto parse(const char* begin) -> const char* {
    return begin;
  }
  auto format(const T& value) const -> std::string {
    return std::to_string(value);
  }
};

LIB_CONSTEXPR20 inline auto count_digits(unsigned long n) -> int {
  int count = 1;
  while (n >= 10) {
    n /= 10;
    ++count;
  }
  return count;
}

class LIB_API format_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

LIB_END_NAMESPACE

#endif  // LIB_FORMAT_H_
"""


def test_a_cpp_header_is_read_with_the_cpp_grammar():
    out = chunks("include/lib/format.h", CPP_HEADER)
    assert {c.language for c in out} == {"cpp"}
    by_symbol = {c.symbol: c for c in out}
    # the class, its methods and the macro-decorated function, each under its own name
    assert by_symbol["formatter"].kind == "class" and "auto parse(" in by_symbol["formatter"].text
    assert by_symbol["count_digits"].kind == "function"
    assert "while (n >= 10)" in by_symbol["count_digits"].text
    # `class LIB_API format_error`: the export macro is not taken for the class name
    assert by_symbol["format_error"].kind == "class"
    assert all(exact(CPP_HEADER, c) for c in out)


C_HEADER = """\
#ifndef POINT_H
#define POINT_H

struct point {
  int x, y;
};

int area(const struct point *p);

#endif
"""


def test_a_plain_c_header_stays_c():
    out = chunks("src/point.h", C_HEADER)
    assert {c.language for c in out} == {"c"}
    assert any(c.symbol == "point" and c.kind == "struct" for c in out)


CONFIG_H = """\
#if defined(_WIN32)
#  define LIB_WINDOWS 1
#else
#  define LIB_WINDOWS 0
#endif

#ifdef __clang__
#  define LIB_CLANG 1
#elif defined(__GNUC__)
#  define LIB_GCC 1
#endif

#if LIB_WINDOWS
#  include <windows.h>
#endif
"""


def test_conditional_compilation_runs_are_one_passage():
    out = chunks("src/config.h", CONFIG_H)
    # each #if branch is its own syntax node; read together they are one short passage
    assert len(out) == 1, [(c.start_line, c.end_line) for c in out]
    assert out[0].start_line == 1 and "LIB_CLANG" in out[0].text and "<windows.h>" in out[0].text
    assert all(exact(CONFIG_H, c) for c in out)


HELPERS = "\n".join(f"int helper_{i}(int x) {{\n  int y = x * {i};\n  return y + {i};\n}}\n" for i in range(40))


def names(out) -> set[str]:
    return {n for c in out if c.symbol for n in c.symbol.split(", ")}  # tiny neighbours share a chunk


def covered_all(src: str, out) -> bool:
    covered = {n for c in out for n in range(c.start_line, c.end_line + 1)}
    return all(i in covered for i, ln in enumerate(src.split("\n"), 1) if ln.strip() and ln.strip() != "}")


def test_definitions_inside_an_unparsable_stretch_are_still_chunked():
    # `class X : {` makes the grammar give up on the rest of the file (one ERROR node); the
    # functions in there are still found by name, and no line is lost
    src = "namespace lib {\nclass X : {\n" + HELPERS + "\nint tail_value = 42;\n"
    out = chunks("src/broken.cpp", src)
    assert {f"helper_{i}" for i in range(40)} <= names(out)
    assert covered_all(src, out) and all(exact(src, c) for c in out)


def test_a_macro_made_scope_is_not_one_function():
    # `BEGIN_SCOPE(lib) {` reads as a function whose body holds functions: C has no nested
    # functions, so its members are chunked one by one
    src = "BEGIN_SCOPE(lib) {\n" + HELPERS + "}\n"
    out = chunks("src/scoped.c", src)
    assert {f"helper_{i}" for i in range(40)} <= names(out)
    assert covered_all(src, out) and all(exact(src, c) for c in out)
