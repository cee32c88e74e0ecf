// vl::format prints what {fmt} 9 prints for the forms the project uses (core/text_format.h). The
// expected texts are {fmt}'s documented output (https://fmt.dev/9.1.0/syntax.html): "{}" of a double
// is the shortest text that reads back as the same double, fixed between 1e-4 and 1e16, exponent form
// outside; the precision forms are printf's.
#include <catch2/catch.hpp>

#include <cstdint>
#include <limits>
#include <string>

#include "text_format.h"

using vl::format;

TEST_CASE("text format: integers, strings, bools and chars in {}", "[text_format]") {
    CHECK(format("{} layers, {} heads", 32, 8u) == "32 layers, 8 heads");
    CHECK(format("{}", std::int64_t{-9223372036854775807LL - 1}) == "-9223372036854775808");
    CHECK(format("{}", std::numeric_limits<std::uint64_t>::max()) == "18446744073709551615");
    CHECK(format("{} / {} / {}", std::string("a"), std::string_view("b"), "c") == "a / b / c");
    CHECK(format("{} {}", true, 'x') == "true x");
    CHECK(format("no placeholders") == "no placeholders");
}

TEST_CASE("text format: a double in {} is its shortest round-trip text", "[text_format]") {
    CHECK(format("{}", 1.0) == "1");
    CHECK(format("{}", 0.1) == "0.1");
    CHECK(format("{}", 0.1 + 0.2) == "0.30000000000000004");
    CHECK(format("{}", 2.5e9) == "2500000000");
    CHECK(format("{}", 1e15) == "1000000000000000");
    CHECK(format("{}", 1e16) == "1e+16");
    CHECK(format("{}", 1.5e-7) == "1.5e-07");
    CHECK(format("{}", 1e-4) == "0.0001");
    CHECK(format("{}", 1e-5) == "1e-05");
    CHECK(format("{}", -123.25) == "-123.25");
    CHECK(format("{}", 5e-324) == "5e-324");
    CHECK(format("{}", 1e300) == "1e+300");
}

TEST_CASE("text format: precision, %g, width, zero fill, alignment and hex", "[text_format]") {
    CHECK(format("{:.0f}", 2.5) == "2");  // printf rounds half to even
    CHECK(format("{:.0f}", 3.5) == "4");
    CHECK(format("{:.1f} GB", 23.96) == "24.0 GB");
    CHECK(format("{:.4f}", 1.0 / 3.0) == "0.3333");
    CHECK(format("{:.{}f}", 3.14159, 2) == "3.14");
    CHECK(format("{:.3g}", 1234.5) == "1.23e+03");
    CHECK(format("{:.3g}", 0.012345) == "0.0123");
    CHECK(format("{:g} tok/s", 31.5) == "31.5 tok/s");
    CHECK(format("{:03}", 7) == "007");
    CHECK(format("{:03}", -7) == "-07");
    CHECK(format("[{:>3}]", 5) == "[  5]");
    CHECK(format("[{:>3}]", std::string("ab")) == "[ ab]");
    CHECK(format("[{:<4}]", "ab") == "[ab  ]");
    CHECK(format("[{:^6}]", "ab") == "[  ab  ]");
    CHECK(format("[{:>3}]", "toolong") == "[toolong]");
    CHECK(format("{:04x}", 255u) == "00ff");
    CHECK(format("{:02x}", 10) == "0a");
}

TEST_CASE("text format: braces, missing arguments and unknown specs never throw", "[text_format]") {
    CHECK(format("{{}} {}", 1) == "{} 1");
    CHECK(format("a }} b") == "a } b");
    CHECK(format("{} {}", 1) == "1 {?}");
    CHECK(format("{:q}", 1) == "{?}");
    CHECK(format("{:.}", 1.0) == "{?}");
    CHECK(format("{", 1) == "{?}");
}
