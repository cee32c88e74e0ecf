#include <catch2/catch.hpp>

#include "estimate.h"

TEST_CASE("an invalid scenario returns errors naming the field, and no numbers") {
    vl::Scenario s;
    s.gpu.memory_bytes = 0;  // a GPU with no memory
    vl::Estimate e = vl::estimate(s);
    REQUIRE_FALSE(e.ok());
    REQUIRE(e.errors.front().field == "gpu.memory_bytes");
    REQUIRE(e.total_bytes == 0);
}
