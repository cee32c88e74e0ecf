// The text path of core/formula.h: Sym's arithmetic builds the formula and the text with numbers. Out
// of line and compiled for size (it runs with Detail::Full only: once per change, never in a sweep).
#include "formula.h"

namespace vl {

namespace {
std::string wrap(const std::string& t, bool paren) { return paren ? "(" + t + ")" : t; }
Sym binary(const Sym& a, const Sym& b, char op, double v) {
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
Sym call(const char* fn, const Sym& a, const Sym* b, double v) {
    Sym r;
    r.v = v;
    r.sym = std::string(fn) + "(" + a.sym + (b ? ", " + b->sym : "") + ")";
    r.num = std::string(fn) + "(" + a.num + (b ? ", " + b->num : "") + ")";
    r.prec = Prec::Atom;
    r.none = false;
    return r;
}
Sym zero_if_none(const Sym& s) { return s.none ? Sym(0) : s; }
}  // namespace

Sym::Sym(const Sym&) = default;
Sym::Sym(Sym&&) noexcept = default;
Sym& Sym::operator=(const Sym&) = default;
Sym& Sym::operator=(Sym&&) noexcept = default;
Sym::~Sym() = default;

Sym Sym::constant(double value) {
    Sym s;
    s.v = value; s.sym = number_text(value); s.num = s.sym; s.none = false;
    s.prec = s.sym[0] == '-' ? Prec::Sum : Prec::Atom;
    return s;
}
Sym Sym::leaf(const char* name, double value) {
    Sym s;
    s.v = value; s.sym = name; s.num = number_text(value); s.none = false;
    s.prec = s.num[0] == '-' ? Prec::Sum : Prec::Atom;  // a negative number is parenthesised like a difference
    return s;
}

Sym operator+(const Sym& a, const Sym& b) {
    if (a.none) return b;
    if (b.none) return a;
    return binary(a, b, '+', a.v + b.v);
}
Sym operator-(const Sym& a, const Sym& b) {
    if (b.none) return a;
    const Sym l = zero_if_none(a);
    return binary(l, b, '-', l.v - b.v);
}
Sym operator*(const Sym& a, const Sym& b) {
    if (a.none || b.none) return Sym{};
    return binary(a, b, '*', a.v * b.v);
}
Sym operator/(const Sym& a, const Sym& b) {
    const Sym l = zero_if_none(a), r = zero_if_none(b);
    return binary(l, r, '/', l.v / r.v);
}
Sym& operator+=(Sym& a, const Sym& b) { return a = a + b; }
Sym& operator-=(Sym& a, const Sym& b) { return a = a - b; }
Sym& operator*=(Sym& a, const Sym& b) { return a = a * b; }
Sym& operator/=(Sym& a, const Sym& b) { return a = a / b; }

Sym max_of(const Sym& a, const Sym& b) {
    const Sym l = zero_if_none(a), r = zero_if_none(b);
    return call("max", l, &r, std::max(l.v, r.v));
}
Sym min_of(const Sym& a, const Sym& b) {
    const Sym l = zero_if_none(a), r = zero_if_none(b);
    return call("min", l, &r, std::min(l.v, r.v));
}
Sym ceil_of(const Sym& a) { const Sym x = zero_if_none(a); return call("ceil", x, nullptr, std::ceil(x.v)); }
Sym floor_of(const Sym& a) { const Sym x = zero_if_none(a); return call("floor", x, nullptr, std::floor(x.v)); }

Symbols::~Symbols() = default;
Sym Symbols::operator()(const char* name, double v) const { return Sym::leaf(name, v); }
Sym Symbols::let(const char* name, const Sym& def) {
    const Sym x = zero_if_none(def);
    std::string d = std::string(name) + " = " + x.sym;
    if (std::find(where.begin(), where.end(), d) == where.end()) where.push_back(std::move(d));
    return Sym::leaf(name, x.v);
}
std::string Symbols::formula(const Sym& top) const {
    std::string out = zero_if_none(top).sym;
    for (const std::string& w : where) out += ", " + w;
    return out;
}
void Symbols::set_text(Component& c, const Sym& top) const { c.set_text(formula(top), derivation_text(top, c.bytes)); }

std::string derivation_text(const Sym& top, double bytes) { return zero_if_none(top).num + " = " + bytes_text(bytes); }

}  // namespace vl
