// Number text (core/units.h): the one formatter behind exports, CLI tables, web labels and chart
// axes. Every expected string below is worked out by hand from the rule in units.h.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <limits>

#include "units.h"

using namespace vl;

TEST_CASE("units: GiB and GB are different units of the same bytes", "[units]") {
    // 80 GiB = 80 * 2^30 = 85,899,345,920 B = 85.899... GB.
    const double b = 80 * kGiB;
    CHECK(amount(b, SizeUnit::GiB) == "80.00");
    CHECK(amount(b, SizeUnit::GB) == "85.90");
    CHECK(amount_with_unit(b, SizeUnit::GiB) == "80.00 GiB");
    CHECK(amount_with_unit(b, SizeUnit::GB) == "85.90 GB");
    // 6,738,415,616 parameters * 2 bytes = 13,476,831,232 B: / 2^30 = 12.5511... GiB, / 10^9 = 13.4768... GB.
    CHECK(amount(13476831232.0, SizeUnit::GiB) == "12.55");
    CHECK(amount(13476831232.0, SizeUnit::GB) == "13.48");
    // One decimal on request (the GPU picker): 79.216 GiB -> "79.2".
    CHECK(amount_with_unit(79.216 * kGiB, SizeUnit::GiB, 1) == "79.2 GiB");
    CHECK(amount(0, SizeUnit::GB) == "0.00");
}

TEST_CASE("units: rounding is to the nearest, ties to even, of the exact binary value", "[units]") {
    CHECK(fixed_text(0.125, 2) == "0.12");   // exactly halfway: to the even 2
    CHECK(fixed_text(0.375, 2) == "0.38");   // exactly halfway: to the even 8
    CHECK(fixed_text(2.675, 2) == "2.67");   // 2.675 is stored as 2.67499999999999982236431605997495353221893310546875
    CHECK(fixed_text(1.005, 2) == "1.00");   // 1.005 is stored as 1.00499999999999989341858963598497211933135986328125
    CHECK(fixed_text(2.5, 0) == "2");
    CHECK(fixed_text(3.5, 0) == "4");
    CHECK(fixed_text(1.5, 3) == "1.500");
    // 1/8 GiB = 134,217,728 B: 0.125 GiB exactly, printed "0.12".
    CHECK(amount(134217728.0, SizeUnit::GiB) == "0.12");
    CHECK(whole_text(85899345920.0) == "85899345920");  // digits only: CSV's bytes column
    CHECK(whole_text(999.5) == "1000");
    CHECK(whole_text(1e20) == "100000000000000000000");  // never 1e+20
}

TEST_CASE("units: thousands grouping of counts and bytes", "[units]") {
    CHECK(group_thousands(int64_t{0}) == "0");
    CHECK(group_thousands(int64_t{999}) == "999");
    CHECK(group_thousands(int64_t{1000}) == "1,000");
    CHECK(group_thousands(int64_t{-1234}) == "-1,234");
    CHECK(group_thousands(int64_t{-123456}) == "-123,456");
    CHECK(group_thousands(int64_t{8030261248}) == "8,030,261,248");
    CHECK(group_thousands(std::numeric_limits<int64_t>::max()) == "9,223,372,036,854,775,807");
    CHECK(group_thousands(std::numeric_limits<int64_t>::min()) == "-9,223,372,036,854,775,808");  // no -n overflow
    CHECK(grouped_whole(13476831232.4) == "13,476,831,232");
    CHECK(grouped_whole(999.5) == "1,000");            // rounds, then groups
    CHECK(grouped_whole(-1234567.5) == "-1,234,568");  // halfway: to the even 8
    CHECK(grouped_whole(100.0) == "100");
    CHECK(grouped_whole(std::nan("")) == "nan");
    CHECK(grouped_whole(-INFINITY) == "-inf");
}

TEST_CASE("units: negative headroom keeps its sign", "[units]") {
    // 24 GiB GPU, 25.5 GiB needed: headroom -1.5 GiB.
    const double headroom = 24 * kGiB - 25.5 * kGiB;
    CHECK(amount(headroom, SizeUnit::GiB) == "-1.50");
    CHECK(amount(headroom, SizeUnit::GB) == "-1.61");  // -1.5 * 2^30 / 10^9 = -1.6106...
    CHECK(bytes_label(headroom, SizeUnit::GiB) == "-1.50 GiB");
    CHECK(bytes_label(-150 * kGiB, SizeUnit::GiB) == "-150.0 GiB");
    // A hair over the GPU (1 MB) still reads as over, not as "0.00".
    CHECK(amount(-1e6, SizeUnit::GiB) == "-0.00");
}

TEST_CASE("units: labels take one decimal from 100 units on, and a dash when not finite", "[units]") {
    CHECK(bytes_label(15.95 * kGiB, SizeUnit::GiB) == "15.95 GiB");
    CHECK(bytes_label(99.99 * kGiB, SizeUnit::GiB) == "99.99 GiB");
    CHECK(bytes_label(140.5 * kGiB, SizeUnit::GiB) == "140.5 GiB");
    CHECK(bytes_label(1536 * kGiB, SizeUnit::GiB) == "1536.0 GiB");
    // 99.996 rounds to 100.00 at two decimals, so it is a 100-unit value: one decimal.
    CHECK(bytes_label(99.996 * kGiB, SizeUnit::GiB) == "100.0 GiB");
    CHECK(bytes_label(100e9, SizeUnit::GB) == "100.0 GB");
    CHECK(bytes_label(std::nan(""), SizeUnit::GiB) == "—");
    CHECK(bytes_label(INFINITY, SizeUnit::GB) == "—");
}

TEST_CASE("units: input sizes in decimal steps", "[units]") {
    CHECK(size_text(0) == "0 bytes");
    CHECK(size_text(9999) == "9999 bytes");
    CHECK(size_text(10000) == "10 KB");
    CHECK(size_text(4194304) == "4194 KB");  // 4 MiB = 4,194.304 KB
    CHECK(size_text(9999999) == "10000 KB");  // 9,999.999 KB rounds up, still in KB below 10^7 bytes
    CHECK(size_text(10000000) == "10 MB");
    CHECK(size_text(15400000) == "15 MB");
}

TEST_CASE("units: short counts for chart axes and solver answers", "[units]") {
    CHECK(count_label(1) == "1");
    CHECK(count_label(512) == "512");
    CHECK(count_label(1000) == "1000");
    CHECK(count_label(1024) == "1k");
    CHECK(count_label(1025) == "1025");
    CHECK(count_label(4096) == "4k");
    CHECK(count_label(131072) == "128k");  // 128 * 1024
    CHECK(count_label(9999) == "9999");
    CHECK(count_label(10000) == "10.0k");
    CHECK(count_label(12340) == "12.3k");
    CHECK(params_label(8030261248) == "8.0B");
    CHECK(params_label(1000000000) == "1.0B");
    CHECK(params_label(124439808) == "124M");
    CHECK(params_label(70553706496) == "70.6B");
}
