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

struct Sym {
    double v = 0;
    std::string sym;   // symbolic text, e.g. "P * weight_bytes / N_w"
    std::string num;   // the same with numbers, e.g. "6,738,415,616 * 2 / 1"
    Prec prec = Prec::Atom;
    bool none = true;  // the empty term N{}: adds as nothing, multiplies as 0

    Sym() = default;
    template <class T>
        requires std::is_arithmetic_v<T>
    Sym(T c) : v(static_cast<double>(c)), sym(number_text(v)), num(sym), prec(sym[0] == '-' ? Prec::Sum : Prec::Atom), none(false) {
        static_assert(!std::is_same_v<T, bool>, "expressions take numbers, not bools");
    }
    static Sym leaf(const char* name, double value) {
        Sym s;
        s.v = value; s.sym = name; s.num = number_text(value); s.none = false;
        s.prec = s.num[0] == '-' ? Prec::Sum : Prec::Atom;  // a negative number is parenthesised like a difference
        return s;
    }
};

namespace detail {
inline std::string wrap(const std::string& t, bool paren) { return paren ? "(" + t + ")" : t; }
inline Sym binary(const Sym& a, const Sym& b, char op, double v) {
    const Prec p = (op == '+' || op == '-') ? Prec::Sum : Prec::Product;
    const bool pa = a.prec < p;
    const bool pb = b.prec < p || (b.prec == p && (op == '-' || op == '/'));
    Sym r;
    r.v = v;
    r.sym = wrap(a.sym, pa) + " " + op + " " + wrap(b.sym, pb);
    r.num = wrap(a.num, pa) + " " + op + " " + wrap(b.num, pb);
    r.prec = p;
    r.none = false;
    return r;
}
inline Sym call(const char* fn, const Sym& a, const Sym* b, double v) {
    Sym r;
    r.v = v;
    r.sym = std::string(fn) + "(" + a.sym + (b ? ", " + b->sym : "") + ")";
    r.num = std::string(fn) + "(" + a.num + (b ? ", " + b->num : "") + ")";
    r.prec = Prec::Atom;
    r.none = false;
    return r;
}
inline Sym zero_if_none(const Sym& s) { return s.none ? Sym(0) : s; }
}  // namespace detail

inline Sym operator+(const Sym& a, const Sym& b) {
    if (a.none) return b;
    if (b.none) return a;
    return detail::binary(a, b, '+', a.v + b.v);
}
inline Sym operator-(const Sym& a, const Sym& b) {
    if (b.none) return a;
    const Sym l = detail::zero_if_none(a);
    return detail::binary(l, b, '-', l.v - b.v);
}
inline Sym operator*(const Sym& a, const Sym& b) {
    if (a.none || b.none) return Sym{};
    return detail::binary(a, b, '*', a.v * b.v);
}
inline Sym operator/(const Sym& a, const Sym& b) {
    const Sym l = detail::zero_if_none(a), r = detail::zero_if_none(b);
    return detail::binary(l, r, '/', l.v / r.v);
}
inline Sym& operator+=(Sym& a, const Sym& b) { return a = a + b; }
inline Sym& operator-=(Sym& a, const Sym& b) { return a = a - b; }
inline Sym& operator*=(Sym& a, const Sym& b) { return a = a * b; }
inline Sym& operator/=(Sym& a, const Sym& b) { return a = a / b; }

// The functions an expression may use, over double (fast path) and over Sym (text).
inline double max_of(double a, double b) { return std::max(a, b); }
inline double min_of(double a, double b) { return std::min(a, b); }
inline double ceil_of(double a) { return std::ceil(a); }
inline double floor_of(double a) { return std::floor(a); }
inline Sym max_of(const Sym& a, const Sym& b) {
    const Sym l = detail::zero_if_none(a), r = detail::zero_if_none(b);
    return detail::call("max", l, &r, std::max(l.v, r.v));
}
inline Sym min_of(const Sym& a, const Sym& b) {
    const Sym l = detail::zero_if_none(a), r = detail::zero_if_none(b);
    return detail::call("min", l, &r, std::min(l.v, r.v));
}
inline Sym ceil_of(const Sym& a) { const Sym x = detail::zero_if_none(a); return detail::call("ceil", x, nullptr, std::ceil(x.v)); }
inline Sym floor_of(const Sym& a) { const Sym x = detail::zero_if_none(a); return detail::call("floor", x, nullptr, std::floor(x.v)); }

// The fast path: every quantity is its value.
struct Numbers {
    double operator()(const char*, double v) const { return v; }
    double let(const char*, double v) const { return v; }
};

// The text path: every quantity is a named leaf; let() records its definition.
struct Symbols {
    std::vector<std::string> where;  // "A_attn = qkv_in + Q + ...", in the order they were named
    Sym operator()(const char* name, double v) const { return Sym::leaf(name, v); }
    Sym let(const char* name, const Sym& def) {
        const Sym x = detail::zero_if_none(def);
        std::string d = std::string(name) + " = " + x.sym;
        if (std::find(where.begin(), where.end(), d) == where.end()) where.push_back(std::move(d));
        return Sym::leaf(name, x.v);
    }
    // "<top formula>, A = ..., B = ..."
    std::string formula(const Sym& top) const {
        std::string out = detail::zero_if_none(top).sym;
        for (const std::string& w : where) out += ", " + w;
        return out;
    }
};

// The full substituted text: "<expression with numbers> = <bytes> B".
inline std::string derivation_text(const Sym& top, double bytes) { return detail::zero_if_none(top).num + " = " + bytes_text(bytes); }

// Appends a component whose bytes, formula and substituted text all come from `expr` (see above).
template <class F>
    requires std::is_invocable_v<F&, Numbers&>
Component& add(Estimate& e, Detail d, Component c, F&& expr) {
    Numbers n;
    c.bytes = static_cast<double>(expr(n));
    if (d == Detail::Full) {
        Symbols s;
        const Sym top = expr(s);
        c.set_text(s.formula(top), derivation_text(top, c.bytes));
    }
    e.components.push_back(std::move(c));
    return e.components.back();
}

}  // namespace vl
