// Numbers as people type them into the web UI's fields (core/number_input.h). The shorthands are
// those of model cards: a "4k context" is 4096 tokens, "32K" 32768, "128k" 131072, "1M" 1048576.
#include <catch2/catch.hpp>

#include "number_input.h"

using vl::parse_decimal_number;
using vl::parse_whole_number;

TEST_CASE("whole-number fields take plain numbers, k / M shorthands and scientific notation") {
    struct Case { const char* text; int64_t want; };
    const Case cases[] = {
        {"4096", 4096},        {" 4096 ", 4096},        {"4k", 4 * 1024},      {"4K", 4 * 1024},
        {"32K", 32 * 1024},    {"128k", 128 * 1024},    {"1M", 1024 * 1024},   {"1m", 1024 * 1024},
        {"1e4", 10000},        {"1E4", 10000},          {"1.5k", 1536},        {"2.5e3", 2500},
        {"+8", 8},             {"-2", -2},              {"0", 0},              {"007", 7},
    };
    for (const Case& c : cases) {
        INFO(c.text);
        const auto r = parse_whole_number(c.text, "infer.context");
        REQUIRE(r.ok());
        CHECK(*r == c.want);
    }
}

TEST_CASE("whole-number fields refuse what is not a whole number, naming the field and the text") {
    const char* bad[] = {"3.5", "4kb", "12abc", "0x10", "", "   ", "k", "e4", "1e", "nan", "inf", "1,024", "4 k", "--1", "1.1k"};
    for (const char* t : bad) {
        INFO(t);
        const auto r = parse_whole_number(t, "train.micro_batch");
        REQUIRE_FALSE(r.ok());
        REQUIRE(r.errors.size() == 1);
        CHECK(r.errors[0].field == "train.micro_batch");
        CHECK_FALSE(r.errors[0].message.empty());
    }
    // What is wrong, and what to type instead.
    CHECK(parse_whole_number("3.5", "f").errors[0].message == "\"3.5\" is not a whole number: type e.g. 3 or 4");
    CHECK(parse_whole_number("4kb", "f").errors[0].message.rfind("\"4kb\" is not a number: type a whole number, e.g. 4096, 4k", 0) == 0);
    CHECK(parse_whole_number("", "f").errors[0].message.rfind("is empty: ", 0) == 0);
    // 1.1k = 1126.4
    CHECK(parse_whole_number("1.1k", "f").errors[0].message == "\"1.1k\" is not a whole number: type e.g. 1126 or 1127");
    // 2^53 is the largest; 1e16 is over it.
    CHECK(*parse_whole_number("9007199254740992", "f") == vl::kMaxWholeNumber);
    CHECK(parse_whole_number("1e16", "f").errors[0].message.find("too large") != std::string::npos);
}

TEST_CASE("decimal fields take decimals and scientific notation, and refuse the rest") {
    CHECK(*parse_decimal_number("0.9", "f") == 0.9);
    CHECK(*parse_decimal_number(".5", "f") == 0.5);
    CHECK(*parse_decimal_number("80", "f") == 80.0);
    CHECK(*parse_decimal_number("1e-3", "f") == 0.001);
    CHECK(*parse_decimal_number(" 13.5 ", "f") == 13.5);
    for (const char* t : {"4k", "0,9", "80GB", "", ".", "1e", "abc", "nan"}) {
        INFO(t);
        const auto r = parse_decimal_number(t, "gpu.memory");
        REQUIRE_FALSE(r.ok());
        CHECK(r.errors[0].field == "gpu.memory");
    }
}
