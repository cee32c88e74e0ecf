// Building Components: one expression per quantity gives its bytes, its formula and the formula with the user's numbers.
// Keeps the numeric path free of string work (sweeps and solvers use Detail::NumbersOnly).
#pragma once
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>
#include <type_traits>
#include <vector>

#include "estimate.h"
#include "units.h"

namespace vl {

// A Component whose bytes, formula and substituted text add() fills from its expression (below).
inline Component comp(const char* id, const char* label, Category cat, unsigned phases, const char* source, bool host = false) {
    Component c;
    c.id = id; c.label = label; c.category = cat; c.phases = phases; c.source = source; c.host = host;
    return c;
}

// ---- the derivation text ("show the math") --------------------------------------------------
// One convention for every Component's `substituted` text, so the UI shows them alike:
//   <the symbolic formula with the user's numbers, same order and shape> = <bytes> B
// e.g. formula "P * weight_bytes / N_w" -> "6,738,415,616 * 2 / 1 = 13,476,831,232 B".
// Numbers print as number_text (units.h) does: exact grouped integers (8,030,261,248), fixed-point
// fractions (1.002, 0.126953), never scientific.

// " = <bytes> B", the ending of every substituted text.
inline std::string bytes_text(double bytes) { return number_text(bytes) + " B"; }

// ---- one expression per quantity ------------------------------------------------------------
// A component's bytes are written ONCE, as a generic lambda over a quantity maker `q`:
//
//   add(e, d, comp("weights", "weights", Category::Weights, kAllPhases, "[zero2020 §3.1]"),
//       [&](auto& q) { return q("P", P) * q("weight_bytes", dt.weight) / q("N_w", n_w); });
//
// add() runs it over Numbers, where q(name, v) is just v (the fast path: plain double arithmetic,
// no strings), for Component::bytes. With Detail::Full it runs it again over Symbols, where
// q(name, v) is a Sym carrying the value, the symbol and the number as text; + - * / and
// min_of/max_of/ceil_of/floor_of build both texts with the parentheses the arithmetic needs. That gives
//   formula      "P * weight_bytes / N_w"
//   substituted  "6,738,415,616 * 2 / 1 = 13,476,831,232 B"
// from the same code that computed the number, so the three cannot disagree.
//   - Plain numbers in the expression (2 * q(...)) print as themselves in both texts.
//   - q.let("A_attn", expr) names a sub-expression: over Numbers it is expr's value; over Symbols the
//     formula shows A_attn and appends ", A_attn = <expr's formula>", the substituted text shows the value.
//     The ", X = ..." parts follow the order the let()s ran in. C++ leaves the order of two operands
//     unspecified (q.let("A", a) + q.let("B", b) may run B first, and GCC and Clang differ): where
//     the order is shown, name them in statements, one after the other.
//   - Sums that grow under conditions start from N{} (0.0 for double; for Sym an empty term that
//     vanishes when something is added to it), with N = std::decay_t<decltype(q("", 0))>.
//   - Functions used inside may be templates over the maker: template <class Q> auto f(Q& q, ...).

enum class Prec { Sum = 1, Product = 2, Atom = 3 };

// The text path is cold: it runs once per change in the page (Detail::Full), never in a sweep, and
// each component's expression is instantiated a second time for it. So its operations live out of
// line in core/formula.cpp (compiled for size) and are never inlined, not even by the web build's
// link-time optimisation, and each expression's text half (add_text below) is compiled for size:
// the hot path keeps a call. VL_TEXT_PATH marks those functions.
#if defined(__clang__)
#define VL_TEXT_PATH [[gnu::noinline, gnu::cold, clang::minsize]]
#else
#define VL_TEXT_PATH [[gnu::noinline, gnu::cold]]
#endif

struct Sym {
    double v = 0;
    std::string sym;   // symbolic text, e.g. "P * weight_bytes / N_w"
    std::string num;   // the same with numbers, e.g. "6,738,415,616 * 2 / 1"
    Prec prec = Prec::Atom;
    bool none = true;  // the empty term N{}: adds as nothing, multiplies as 0

    Sym() = default;
    // A plain number in an expression: prints as itself in both texts.
    template <class T>
        requires std::is_arithmetic_v<T>
    Sym(T c) : Sym(constant(static_cast<double>(c))) {
        static_assert(!std::is_same_v<T, bool>, "expressions take numbers, not bools");
    }
    VL_TEXT_PATH static Sym constant(double value);
    VL_TEXT_PATH static Sym leaf(const char* name, double value);
    // Out of line, so that the temporaries of an expression cost a call each, not inlined string code.
    VL_TEXT_PATH Sym(const Sym&);
    VL_TEXT_PATH Sym(Sym&&) noexcept;
    VL_TEXT_PATH Sym& operator=(const Sym&);
    VL_TEXT_PATH Sym& operator=(Sym&&) noexcept;
    VL_TEXT_PATH ~Sym();
};

// + - * / print "a op b" with the parentheses the arithmetic needs; the empty term N{} adds as nothing.
VL_TEXT_PATH Sym operator+(const Sym& a, const Sym& b);
VL_TEXT_PATH Sym operator-(const Sym& a, const Sym& b);
VL_TEXT_PATH Sym operator*(const Sym& a, const Sym& b);
VL_TEXT_PATH Sym operator/(const Sym& a, const Sym& b);
VL_TEXT_PATH Sym& operator+=(Sym& a, const Sym& b);
VL_TEXT_PATH Sym& operator-=(Sym& a, const Sym& b);
VL_TEXT_PATH Sym& operator*=(Sym& a, const Sym& b);
VL_TEXT_PATH Sym& operator/=(Sym& a, const Sym& b);

// The functions an expression may use, over double (fast path) and over Sym (text).
inline double max_of(double a, double b) { return std::max(a, b); }
inline double min_of(double a, double b) { return std::min(a, b); }
inline double ceil_of(double a) { return std::ceil(a); }
inline double floor_of(double a) { return std::floor(a); }
VL_TEXT_PATH Sym max_of(const Sym& a, const Sym& b);
VL_TEXT_PATH Sym min_of(const Sym& a, const Sym& b);
VL_TEXT_PATH Sym ceil_of(const Sym& a);
VL_TEXT_PATH Sym floor_of(const Sym& a);

// The fast path: every quantity is its value.
struct Numbers {
    double operator()(const char*, double v) const { return v; }
    double let(const char*, double v) const { return v; }
};

// The text path: every quantity is a named leaf; let() records its definition.
struct Symbols {
    std::vector<std::string> where;  // "A_attn = qkv_in + Q + ...", in the order they were named
    Symbols() = default;
    VL_TEXT_PATH ~Symbols();
    VL_TEXT_PATH Sym operator()(const char* name, double v) const;
    VL_TEXT_PATH Sym let(const char* name, const Sym& def);
    // "<top formula>, A = ..., B = ..."
    VL_TEXT_PATH std::string formula(const Sym& top) const;
    // Fills c's formula (formula(top)) and substituted text (derivation_text) for c.bytes.
    VL_TEXT_PATH void set_text(Component& c, const Sym& top) const;
};

// The full substituted text: "<expression with numbers> = <bytes> B".
VL_TEXT_PATH std::string derivation_text(const Sym& top, double bytes);

// The text half of add(): the expression over Symbols, one instantiation per expression, out of the
// hot path and compiled for size.
template <class F>
VL_TEXT_PATH void add_text(Component& c, F& expr) {
    Symbols s;
    const Sym top = expr(s);
    s.set_text(c, top);
}

// e.components.push_back(c): out of line, so that the vector's append code is written once, not at
// each of the ~100 add() sites (the page's size, issue 16).
[[gnu::noinline]] Component& append_component(Estimate& e, Component&& c);

// Appends a component whose bytes, formula and substituted text all come from `expr` (see above).
template <class F>
    requires std::is_invocable_v<F&, Numbers&>
Component& add(Estimate& e, Detail d, Component c, F&& expr) {
    Numbers n;
    c.bytes = static_cast<double>(expr(n));
    if (d == Detail::Full) add_text(c, expr);
    return append_component(e, std::move(c));
}

}  // namespace vl
