// The one-expression form of core/formula.h: an expression over the quantity maker gives the number
// (over Numbers, plain doubles) and, over Symbols, the symbolic formula and the text with the user's
// numbers. Every expected string and value below is derived by hand from the arithmetic: the
// parentheses a reader needs (and only those), negative numbers, the empty sum N{}, named
// sub-expressions (let) and the functions max/min/ceil/floor.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <type_traits>

#include "estimate.h"
#include "formula.h"

using namespace vl;

namespace {

// The symbolic text, the text with numbers and the value of one expression.
struct Shown {
    std::string sym, num;
    double v;
};
Shown shown(const Sym& s) { return {s.sym, s.num, s.v}; }

// A sum that grows under conditions, written once for both makers.
template <class Q>
auto conditional_sum(Q& q, bool with_a, bool with_b) {
    using N = std::decay_t<decltype(q("", 0.0))>;
    N r{};
    if (with_a) r += q("a", 12);
    if (with_b) r += q("b", 6);
    return r;
}

}  // namespace

TEST_CASE("Sym: parentheses exactly where the arithmetic needs them", "[formula]") {
    Symbols q;
    const Sym a = q("a", 12), b = q("b", 6), c = q("c", 2);

    // differences: the right operand of '-' is bracketed when it is itself a sum or difference
    Shown s = shown(a - (b - c));
    CHECK(s.sym == "a - (b - c)");
    CHECK(s.num == "12 - (6 - 2)");
    CHECK(s.v == 8);
    s = shown((a - b) - c);
    CHECK(s.sym == "a - b - c");
    CHECK(s.v == 4);
    s = shown(a - (b + c));
    CHECK(s.sym == "a - (b + c)");
    CHECK(s.v == 4);
    s = shown(a + (b - c));  // a + (b - c) = a + b - c: no brackets needed
    CHECK(s.sym == "a + b - c");
    CHECK(s.v == 16);

    // quotients: the right operand of '/' is bracketed when it is a product or quotient
    s = shown(a / (b * c));
    CHECK(s.sym == "a / (b * c)");
    CHECK(s.num == "12 / (6 * 2)");
    CHECK(s.v == 1);
    s = shown(a / (b / c));
    CHECK(s.sym == "a / (b / c)");
    CHECK(s.v == 4);
    s = shown(a / b / c);
    CHECK(s.sym == "a / b / c");
    CHECK(s.v == 1);
    s = shown(a / b * c);
    CHECK(s.sym == "a / b * c");
    CHECK(s.v == 4);
    s = shown(a * (b / c));  // a * (b / c) = a * b / c
    CHECK(s.sym == "a * b / c");
    CHECK(s.v == 36);

    // a sum inside a product is bracketed on either side
    s = shown((a + b) * c);
    CHECK(s.sym == "(a + b) * c");
    CHECK(s.num == "(12 + 6) * 2");
    CHECK(s.v == 36);
    s = shown(c * (a + b));
    CHECK(s.sym == "c * (a + b)");
    CHECK(s.v == 36);
    s = shown(a + b * c);
    CHECK(s.sym == "a + b * c");
    CHECK(s.v == 24);
    s = shown(a * (b * c));
    CHECK(s.sym == "a * b * c");
    CHECK(s.v == 144);

    // plain numbers in an expression print as themselves in both texts
    s = shown(2 * a + 0.5 * b);
    CHECK(s.sym == "2 * a + 0.5 * b");
    CHECK(s.num == "2 * 12 + 0.5 * 6");
    CHECK(s.v == 27);
    // the numbers follow number_text: grouped digits, fixed-point fractions
    CHECK(q("P", 6738415616.0).num == "6,738,415,616");
    CHECK(q("f", 0.05).num == "0.05");
}

TEST_CASE("Sym: negative numbers are bracketed wherever a difference would be", "[formula]") {
    Symbols q;
    const Sym a = q("a", 12), x = q("x", -3);
    CHECK((a * x).num == "12 * (-3)");
    CHECK((a * x).v == -36);
    CHECK((x * a).num == "(-3) * 12");
    CHECK((a - x).num == "12 - (-3)");
    CHECK((a - x).v == 15);
    CHECK((x - a).num == "-3 - 12");  // a leading negative number needs no brackets
    CHECK((x - a).v == -15);
    CHECK((a + x).num == "12 + -3");
    CHECK((a + x).v == 9);
    CHECK((a / x).num == "12 / (-3)");
    CHECK((a / x).v == -4);
    // a negative constant: the same in the symbolic text
    const Shown s = shown(a * -2);
    CHECK(s.sym == "a * (-2)");
    CHECK(s.num == "12 * (-2)");
    CHECK(s.v == -24);
    // minus zero prints as 0 and is not bracketed
    CHECK((a * q("z", -0.0)).num == "12 * 0");
}

TEST_CASE("Sym: the empty sum N{} adds as nothing and multiplies as 0", "[formula]") {
    Symbols q;
    const Sym a = q("a", 12), none{};
    CHECK(none.none);
    CHECK((none + a).sym == "a");
    CHECK((a + none).sym == "a");
    CHECK((a - none).sym == "a");
    Shown s = shown(none - a);  // nothing minus a: 0 - a
    CHECK(s.sym == "0 - a");
    CHECK(s.num == "0 - 12");
    CHECK(s.v == -12);
    CHECK((none * a).none);   // a product with nothing in it is nothing
    CHECK((a * none).none);
    CHECK(((none * a) + q("b", 6)).sym == "b");
    s = shown(none / a);
    CHECK(s.sym == "0 / a");
    CHECK(s.v == 0);
    CHECK(max_of(none, a).sym == "max(0, a)");
    CHECK(ceil_of(none).num == "ceil(0)");
    // the text of an expression that is nothing at all
    CHECK(q.formula(none) == "0");
    CHECK(derivation_text(none, 0) == "0 = 0 B");

    // one conditional sum, evaluated by both makers: same value, text with exactly the terms added
    Numbers n;
    CHECK(conditional_sum(n, true, true) == 18);
    CHECK(conditional_sum(n, false, true) == 6);
    CHECK(conditional_sum(n, false, false) == 0);
    Symbols t;
    s = shown(conditional_sum(t, true, true));
    CHECK(s.sym == "a + b");
    CHECK(s.num == "12 + 6");
    CHECK(s.v == 18);
    CHECK(conditional_sum(t, false, true).sym == "b");
    CHECK(conditional_sum(t, false, false).none);
}

TEST_CASE("Symbols::let names a sub-expression: its definition follows the formula, its value the numbers", "[formula]") {
    {
        Symbols q;
        const Sym A = q.let("A", q("x", 2) * q("y", 3));
        const Sym top = q("n", 4) * A;
        CHECK(q.formula(top) == "n * A, A = x * y");
        CHECK(derivation_text(top, top.v) == "4 * 6 = 24 B");
        CHECK(top.v == 24);
    }
    {
        // a named sum is one quantity: no brackets around it in a product
        Symbols q;
        const Sym S = q.let("S", q("x", 2) + q("y", 3));
        const Sym top = q("n", 4) * S;
        CHECK(top.sym == "n * S");
        CHECK(top.num == "4 * 5");
        CHECK(q.formula(top) == "n * S, S = x + y");
    }
    {
        // nested names: each definition in the order it was named (inner first)
        Symbols q;
        const Sym B = q.let("B", q("x", 2) + q("y", 3));
        const Sym A = q.let("A", B * q("z", 4));
        const Sym top = q("n", 2) * A;
        CHECK(q.formula(top) == "n * A, B = x + y, A = B * z");
        CHECK(derivation_text(top, top.v) == "2 * 20 = 40 B");
    }
    {
        // the same definition named twice is listed once; a name given two different definitions is
        // listed twice (so a name must stand for one definition within one formula)
        Symbols q;
        q.let("T", q("b", 1) * q("s", 8));
        q.let("T", q("b", 1) * q("s", 8));
        CHECK(q.where.size() == 1);
        q.let("T", q("b", 1) * q("s", 8) / q("cp", 2));
        REQUIRE(q.where.size() == 2);
        CHECK(q.where[0] == "T = b * s");
        CHECK(q.where[1] == "T = b * s / cp");
    }
    {
        // a negative named value is bracketed in the numbers; the empty sum is defined as 0
        Symbols q;
        const Sym D = q.let("D", q("x", 2) - q("y", 8));
        CHECK((q("n", 4) * D).num == "4 * (-6)");
        const Sym Z = q.let("Z", Sym{});
        CHECK(Z.v == 0);
        CHECK(q.where.back() == "Z = 0");
    }
    // over Numbers a name is just its value
    Numbers n;
    CHECK(n.let("A", n("x", 2) * n("y", 3)) == 6);
}

TEST_CASE("max_of, min_of, ceil_of, floor_of: the same function over double and in the text", "[formula]") {
    CHECK(max_of(2.0, 3.0) == 3);
    CHECK(min_of(2.0, 3.0) == 2);
    CHECK(ceil_of(2.5) == 3);
    CHECK(floor_of(2.5) == 2);

    Symbols q;
    const Sym a = q("a", 12), b = q("b", 6), c = q("c", 2), k = q("k", 5);
    Shown s = shown(max_of(a, b));
    CHECK(s.sym == "max(a, b)");
    CHECK(s.num == "max(12, 6)");
    CHECK(s.v == 12);
    s = shown(min_of(a, b * c));
    CHECK(s.sym == "min(a, b * c)");
    CHECK(s.num == "min(12, 6 * 2)");
    CHECK(s.v == 12);
    s = shown(min_of(1.0, a / b));  // a plain number as an argument
    CHECK(s.sym == "min(1, a / b)");
    CHECK(s.v == 1);
    s = shown(ceil_of(a / k));
    CHECK(s.sym == "ceil(a / k)");
    CHECK(s.num == "ceil(12 / 5)");
    CHECK(s.v == 3);
    s = shown(floor_of(a / k));
    CHECK(s.sym == "floor(a / k)");
    CHECK(s.v == 2);
    // a function call is one quantity: no brackets around it
    s = shown(ceil_of(a / k) * c);
    CHECK(s.sym == "ceil(a / k) * c");
    CHECK(s.v == 6);
    s = shown(a - max_of(b, c));
    CHECK(s.sym == "a - max(b, c)");
    CHECK(s.v == 6);
    s = shown(a / min_of(b, c));
    CHECK(s.sym == "a / min(b, c)");
    CHECK(s.v == 6);
}

TEST_CASE("add(): bytes from Numbers, formula and substituted text from Symbols, only with Detail::Full", "[formula]") {
    // meta-llama/Llama-2-7b-hf: 6,738,415,616 parameters in bf16 on one GPU: 13,476,831,232 B
    const auto weights = [](auto& q) { return q("P", 6738415616.0) * q("weight_bytes", 2) / q("N_w", 1); };
    Estimate e;
    Component c;
    c.id = "weights";
    const Component full = add(e, Detail::Full, c, weights);
    CHECK(full.bytes == 13476831232.0);
    CHECK(full.formula() == "P * weight_bytes / N_w");
    CHECK(full.substituted() == "6,738,415,616 * 2 / 1 = 13,476,831,232 B");

    const Component quick = add(e, Detail::NumbersOnly, c, weights);
    CHECK(quick.bytes == 13476831232.0);
    CHECK(quick.formula().empty());
    CHECK(quick.substituted().empty());

    // with a named sub-expression: 2 micro-batches in flight x 3 layers x (4 + 5) bytes
    const Component named = add(e, Detail::Full, c, [](auto& q) {
        const auto A = q.let("A_layer", q("x", 4) + q("y", 5));
        return q("in_flight", 2) * q("L", 3) * A;
    });
    CHECK(named.bytes == 54);
    CHECK(named.formula() == "in_flight * L * A_layer, A_layer = x + y");
    CHECK(named.substituted() == "2 * 3 * 9 = 54 B");
}
