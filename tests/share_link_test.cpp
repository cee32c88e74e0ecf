// Share links (issue 7): exact encoding, round trip, and every kind of damage caught.
#include <catch2/catch.hpp>

#include "estimate.h"
#include "model/hf_config.h"
#include "scenario_json.h"
#include "share_link.h"

using namespace vl;

namespace {

Scenario tiny() {
    Scenario s;
    s.model = model_from_param_count(1000);
    s.model.name = "Tiny";
    return s;
}

// A well-formed link around any JSON text (correct checksum), to reach the scenario reader.
std::string link_around(const std::string& json) {
    std::string payload = json;
    uint32_t c = crc32(json);
    for (int shift = 24; shift >= 0; shift -= 8) payload += static_cast<char>((c >> shift) & 0xFF);
    return "v1." + base64url_encode(payload);
}

std::string only_error(const Result<Scenario>& r) {
    REQUIRE_FALSE(r.ok());
    REQUIRE(r.errors.size() >= 1);
    return to_string(r.errors.front());
}

}  // namespace

TEST_CASE("share link: CRC-32 and base64url match their standards") {
    CHECK(crc32("123456789") == 0xCBF43926u);  // the CRC-32/ISO-HDLC check value (zlib, PNG)
    CHECK(crc32("") == 0u);
    // RFC 4648 §10 test vectors, without padding.
    CHECK(base64url_encode("") == "");
    CHECK(base64url_encode("f") == "Zg");
    CHECK(base64url_encode("fo") == "Zm8");
    CHECK(base64url_encode("foo") == "Zm9v");
    CHECK(base64url_encode("foob") == "Zm9vYg");
    CHECK(base64url_encode("fooba") == "Zm9vYmE");
    CHECK(base64url_encode("foobar") == "Zm9vYmFy");
    // The URL alphabet: 0xFB 0xFF = 111110 111111 1111(00) -> 62 '-', 63 '_', 60 '8'.
    CHECK(base64url_encode("\xFB\xFF") == "-_8");
    std::string bytes;
    CHECK(base64url_decode("Zm9vYmE", bytes));
    CHECK(bytes == "fooba");
    CHECK(base64url_decode("-_8", bytes));
    CHECK(bytes == "\xFB\xFF");
    CHECK_FALSE(base64url_decode("Zm9vYmE=", bytes));  // padding is not part of the link form
    CHECK_FALSE(base64url_decode("Zm+v", bytes));      // '+' is standard base64, not base64url
    CHECK_FALSE(base64url_decode("Zm9vY", bytes));     // 5 characters cannot end a byte string
    CHECK_FALSE(base64url_decode("Zh", bytes));        // 'h' leaves non-zero unused bits: not canonical
}

TEST_CASE("share link: exact form of a small scenario") {
    // JSON {"version":1,"model":{"name":"Tiny","params":1000}}, CRC-32 0xA2277AC9, both computed
    // independently with Python: zlib.crc32(j), base64.urlsafe_b64encode(j + crc.to_bytes(4,'big')).
    const std::string expected = "v1.eyJ2ZXJzaW9uIjoxLCJtb2RlbCI6eyJuYW1lIjoiVGlueSIsInBhcmFtcyI6MTAwMH19oid6yQ";
    CHECK(encode_share_link(tiny()) == expected);
    Result<Scenario> r = decode_share_link("#" + expected);  // as read from location.hash
    REQUIRE(r.ok());
    CHECK(r->model.name == "Tiny");
    CHECK(r->model.params_only == 1000);
}

TEST_CASE("share link: a scenario with many changes round-trips") {
    Scenario s = tiny();
    s.mode = Mode::Infer;
    s.infer.weights = WeightFormat::AWQ4;
    s.infer.kv_dtype = KvDtype::FP8;
    s.infer.batch = 64;
    s.infer.context = 16384;
    s.infer.engine = Engine::VLLM;
    s.parallel.tp = 4;
    s.gpu = {"L40S", 48305799168.0};
    s.gpu_count = 4;
    s.overheads.fragmentation = 0.125;
    Result<Scenario> r = decode_share_link(encode_share_link(s));
    REQUIRE(r.ok());
    CHECK(r->mode == Mode::Infer);
    CHECK(r->infer.weights == WeightFormat::AWQ4);
    CHECK(r->infer.kv_dtype == KvDtype::FP8);
    CHECK(r->infer.batch == 64);
    CHECK(r->infer.context == 16384);
    CHECK(r->infer.engine == Engine::VLLM);
    CHECK(r->parallel.tp == 4);
    CHECK(r->gpu.name == "L40S");
    CHECK(r->gpu.memory_bytes == 48305799168.0);
    CHECK(r->gpu_count == 4);
    CHECK(r->overheads.fragmentation == 0.125);
}

TEST_CASE("share link: a multi-GPU training run keeps its PyTorch release") {
    Scenario s = tiny();
    s.mode = Mode::Train;
    s.parallel.dp = 4;
    s.gpu_count = 4;
    s.train.torch_version = "2.6";
    Result<Scenario> r = decode_share_link(encode_share_link(s));
    REQUIRE(r.ok());
    CHECK(r->train.torch_version == "2.6");
    CHECK(r->parallel.dp == 4);
}

TEST_CASE("share link: every single-character change and every truncation is caught") {
    const std::string link = encode_share_link(tiny());
    const std::string alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    for (size_t i = 0; i < link.size(); ++i) {
        std::string bad = link;
        bad[i] = alphabet[(alphabet.find(link[i]) + 1) % alphabet.size()];  // '.' is not in it: becomes 'A'
        if (bad == link) continue;
        INFO("changed position " << i << ": " << bad);
        CHECK_FALSE(decode_share_link(bad).ok());
    }
    for (size_t n = 0; n < link.size(); ++n) {
        INFO("truncated to " << n << " characters");
        CHECK_FALSE(decode_share_link(link.substr(0, n)).ok());
    }
    std::string flipped = link;
    flipped[20] = flipped[20] == 'a' ? 'b' : 'a';
    CHECK_THAT(only_error(decode_share_link(flipped)), Catch::StartsWith("link: damaged"));
}

TEST_CASE("share link: wrong or missing version prefix") {
    const std::string body = encode_share_link(tiny()).substr(3);
    CHECK(only_error(decode_share_link("v2." + body)) == "link: made by a newer vramlens (link version 2); this build reads version 1");
    CHECK(only_error(decode_share_link("v0." + body)) == "link: link version 0 is no longer supported");
    CHECK_THAT(only_error(decode_share_link("x1." + body)), Catch::StartsWith("link: not a vramlens share link"));
    CHECK_THAT(only_error(decode_share_link(body)), Catch::StartsWith("link: not a vramlens share link"));
    CHECK_THAT(only_error(decode_share_link("")), Catch::StartsWith("link: not a vramlens share link"));
    CHECK_THAT(only_error(decode_share_link("v99999999999." + body)), Catch::Contains("bad version"));
    CHECK_THAT(only_error(decode_share_link("v1." + std::string(70000, 'A'))), Catch::Contains("longer than 64 KiB"));
}

TEST_CASE("share link: a well-formed link with a bad scenario inside names the field") {
    CHECK(only_error(decode_share_link(link_around(R"({"version":1,"model":{"params":1e300}})"))) ==
          "model.params: must be an integer of magnitude at most 1e15; got 1e+300");
    CHECK_THAT(only_error(decode_share_link(link_around(R"({"version":1,"train":{"dropout":NaN}})"))), Catch::StartsWith("json: "));
    CHECK(only_error(decode_share_link(link_around(R"({"version":1,"train":{"micro_batch":-9223372036854775808}})"))) ==
          "train.micro_batch: must be an integer of magnitude at most 1e15; got -9223372036854775808");
    CHECK(only_error(decode_share_link(link_around(R"({"version":1,"model":{"params":1},"parallel":{"tpp":2}})"))) ==
          "parallel.tpp: unknown field");
    CHECK_THAT(only_error(decode_share_link(link_around(R"({"version":3})"))), Catch::StartsWith("version: is 3, newer"));
}

TEST_CASE("share link: parallel.fsdp_version travels, and a link made before it reads as FSDP1") {
    Scenario s = tiny();
    s.mode = Mode::Train;
    s.parallel.dp = 4;
    s.parallel.zero = 3;
    s.gpu_count = 4;
    s.parallel.fsdp_version = 2;
    Result<Scenario> r = decode_share_link(encode_share_link(s));
    REQUIRE(r.ok());
    CHECK(r->parallel.fsdp_version == 2);
    // the small scenario's link above, which has no fsdp_version: FullyShardedDataParallel, as links read before
    Result<Scenario> old = decode_share_link("v1.eyJ2ZXJzaW9uIjoxLCJtb2RlbCI6eyJuYW1lIjoiVGlueSIsInBhcmFtcyI6MTAwMH19oid6yQ");
    REQUIRE(old.ok());
    CHECK(old->parallel.fsdp_version == 1);
}

TEST_CASE("share link: Megatron's uneven pipeline split travels, and a link made before it splits evenly") {
    Scenario s = tiny();
    s.mode = Mode::Train;
    s.parallel.pp = 4;
    s.gpu_count = 4;
    s.parallel.first_stage_layers = 5;
    s.parallel.last_stage_layers = 3;
    Result<Scenario> r = decode_share_link(encode_share_link(s));
    REQUIRE(r.ok());
    CHECK(r->parallel.first_stage_layers == 5);
    CHECK(r->parallel.last_stage_layers == 3);
    // the small scenario's link of the test above, which has neither field: the even split
    Result<Scenario> old = decode_share_link("v1.eyJ2ZXJzaW9uIjoxLCJtb2RlbCI6eyJuYW1lIjoiVGlueSIsInBhcmFtcyI6MTAwMH19oid6yQ");
    REQUIRE(old.ok());
    CHECK(old->parallel.first_stage_layers == 0);
    CHECK(old->parallel.last_stage_layers == 0);
}

TEST_CASE("share link: a link made before the activation formulas were renamed still opens") {
    // JSON {"version":1,"model":{"params":1000},"train":{"activation_formula":"seed-003"}}, CRC-32
    // 0xF33CC91E, encoded independently with Python (zlib.crc32, base64.urlsafe_b64encode).
    const std::string old_link =
        "v1.eyJ2ZXJzaW9uIjoxLCJtb2RlbCI6eyJwYXJhbXMiOjEwMDB9LCJ0cmFpbiI6eyJhY3RpdmF0aW9uX2Zvcm11bGEiOiJzZWVkLTAwMyJ9ffM8yR4";
    Result<Scenario> r = decode_share_link(old_link);
    REQUIRE(r.ok());
    CHECK(r->train.activation_formula == ActivationFormula::PerLayerBytes);
    // a new link carries the new name, and opens to the same formula
    const std::string new_link = encode_share_link(*r);
    CHECK(new_link != old_link);
    Result<Scenario> back = decode_share_link(new_link);
    REQUIRE(back.ok());
    CHECK(back->train.activation_formula == ActivationFormula::PerLayerBytes);
    std::string bytes;
    REQUIRE(base64url_decode(new_link.substr(3), bytes));
    CHECK(bytes.find("\"activation_formula\":\"per-layer-bytes\"") != std::string::npos);
}

TEST_CASE("share link: an imported model carries its Hub repo id and revision with the resolved spec (issue 17)") {
    // A model imported by repo id: the spec from its config.json, the source from the Hub's answer.
    Result<ModelSpec> m = import_hf_config(R"({"model_type": "llama", "hidden_size": 8, "num_hidden_layers": 1,
        "num_attention_heads": 2, "num_key_value_heads": 2, "intermediate_size": 16, "vocab_size": 32})");
    REQUIRE(m.ok());
    Scenario s;
    s.model = *m;
    s.model.name = "tiny";
    s.model.source = {"acme/tiny", "0123456789abcdef0123456789abcdef01234567"};
    const std::string link = encode_share_link(s);
    // Opened without any network: the link alone gives the same model and says where it came from.
    Result<Scenario> back = decode_share_link(link);
    REQUIRE(back.ok());
    CHECK(back->model.hidden == 8);
    CHECK(back->model.ffn == 16);
    CHECK(back->model.vocab == 32);
    CHECK(back->model.name == "tiny");
    CHECK(back->model.source.hub == "acme/tiny");
    CHECK(back->model.source.revision == "0123456789abcdef0123456789abcdef01234567");
    CHECK(validate(*back).empty());
    CHECK(encode_share_link(*back) == link);
    // The source is in the checked bytes: changing a character of it is caught like any other.
    const std::string json = scenario_to_json(s, JsonStyle::Compact);
    CHECK_THAT(json, Catch::Contains(R"("source":{"hub":"acme/tiny","revision":"0123456789abcdef0123456789abcdef01234567"})"));
    // A model with no source (a preset, a typed model) writes none.
    CHECK_THAT(scenario_to_json(Scenario{}, JsonStyle::Pretty), !Catch::Contains("source"));
    CHECK_THAT(encode_share_link(tiny()), !Catch::Contains("c291cmNl"));  // base64 of "source"
}

TEST_CASE("share link: a bad model.source names the field and how to fix it") {
    auto errors_of = [](const std::string& model_json) {
        Result<Scenario> r = decode_share_link(link_around(R"({"version":1,"model":)" + model_json + "}"));
        std::vector<FieldError> e = r.errors;
        if (r.ok()) e = validate(*r);
        std::string out;
        for (const FieldError& f : e) out += to_string(f) + "\n";
        return out;
    };
    CHECK(errors_of(R"({"params":1000,"source":{"hub":"../x/y"}})") ==
          "model.source.hub: must be a Hugging Face repo id \"org/name\" (letters, digits, '.', '_', '-'); got \"../x/y\"\n");
    CHECK(errors_of(R"({"params":1000,"source":{"hub":"no-slash"}})") ==
          "model.source.hub: must be a Hugging Face repo id \"org/name\" (letters, digits, '.', '_', '-'); got \"no-slash\"\n");
    CHECK(errors_of(R"({"params":1000,"source":{"revision":"main"}})") ==
          "model.source.hub: is empty but source.revision is given: name the repo as \"org/name\", or leave out source\n");
    CHECK(errors_of(R"({"params":1000,"source":{"hub":"a/b","revision":"x y"}})") ==
          "model.source.revision: must be a commit sha or branch name (letters, digits, '.', '_', '-', '/', at most 255); got \"x y\"\n");
    CHECK(errors_of(R"({"params":1000,"source":{"hub":"a/b","token":"hf_x"}})") == "model.source.token: unknown field\n");
    CHECK(errors_of(R"({"params":1000,"source":"a/b"})") == "model.source: must be an object; got \"a/b\"\n");
    CHECK(errors_of(R"({"params":1000,"source":{"hub":"a/b","revision":"refs/pr/1"}})").empty());
}

TEST_CASE("share link: an imported GGUF's tensor bytes travel with the model, and a tampered value names its field (issue 17)") {
    // A two-layer model with the tensor bytes of tests/checkpoint_files.h's two-block GGUF.
    Result<ModelSpec> m = import_hf_config(R"({"model_type": "llama", "hidden_size": 256, "num_hidden_layers": 2,
        "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 512, "vocab_size": 32})");
    REQUIRE(m.ok());
    Scenario s;
    s.mode = Mode::Infer;
    s.infer.engine = Engine::LlamaCpp;
    s.infer.weights = WeightFormat::GGUF_Q4_K_M;
    s.model = *m;
    s.model.gguf_bytes = {{376064, 342272}, 4608, 6720, 1024, {}};
    const std::string link = encode_share_link(s);
    Result<Scenario> back = decode_share_link(link);
    REQUIRE(back.ok());
    CHECK(back->model.gguf_bytes.layers == std::vector<uint64_t>{376064, 342272});
    CHECK(back->model.gguf_bytes.token_embd == 4608);
    CHECK(back->model.gguf_bytes.output == 6720);
    CHECK(back->model.gguf_bytes.other == 1024);
    CHECK(encode_share_link(*back) == link);
    CHECK_THAT(scenario_to_json(s, JsonStyle::Compact),
               Catch::Contains(R"("gguf_bytes":{"layers":[376064,342272],"token_embd":4608,"output":6720,"other":1024,"type":"q4_k_m"})"));
    // A file or link written before the bytes recorded their type: the scenario's format then was the file's.
    std::string old_json = scenario_to_json(s, JsonStyle::Compact);
    const std::string typed = R"(,"type":"q4_k_m")";
    old_json.erase(old_json.find(typed), typed.size());
    std::string q8 = old_json;
    q8.replace(q8.find(R"("weights":"q4_k_m")"), 18, R"("weights":"q8_0")");
    Result<Scenario> old_back = scenario_from_json(q8);
    REQUIRE(old_back.ok());
    CHECK(old_back->model.gguf_bytes.type == WeightFormat::GGUF_Q8_0);
    // Written only when present, and only while it describes the model (one entry per layer).
    CHECK_THAT(scenario_to_json(Scenario{}, JsonStyle::Pretty), !Catch::Contains("gguf_bytes"));
    Scenario edited = s;
    edited.model.layers = 3;
    CHECK_THAT(scenario_to_json(edited, JsonStyle::Pretty), !Catch::Contains("gguf_bytes"));

    // Tampered links (checksums recomputed): each bad value is named by its path.
    auto error_of = [](const std::string& gguf_bytes) {
        return only_error(decode_share_link(link_around(R"({"version":1,"model":{"hidden":256,"layers":2,"gguf_bytes":)" + gguf_bytes + "}}")));
    };
    CHECK(error_of(R"({"layers":[376064,-5]})") == "model.gguf_bytes.layers[1]: must be a whole number of bytes from 0 to 2^50 (1125899906842624); got -5");
    CHECK(error_of(R"({"layers":[376064,1.5]})") == "model.gguf_bytes.layers[1]: must be a whole number of bytes from 0 to 2^50 (1125899906842624); got 1.5");
    CHECK(error_of(R"({"layers":[1,2],"output":"x"})") == "model.gguf_bytes.output: must be a whole number of bytes from 0 to 2^50 (1125899906842624); got \"x\"");
    CHECK(error_of(R"({"layers":[1,2],"other":1125899906842625})") ==
          "model.gguf_bytes.other: must be a whole number of bytes from 0 to 2^50 (1125899906842624); got 1125899906842625");
    CHECK(error_of(R"({"layers":7})") == "model.gguf_bytes.layers: must be an array of at most 100000 byte counts, one per layer; got 7");
    CHECK(error_of(R"({"layers":[1,2,3]})") ==
          "model.gguf_bytes.layers: has 3 entries but the model has 2 layers: give one byte count per layer (blk.<i>.*), or leave out "
          "gguf_bytes to size the weights by infer.weights");
    // 2^50 - 1 twice: each within bounds, the total (2^51 - 2) is not a real file.
    CHECK(error_of(R"({"layers":[1125899906842623,1125899906842623]})") ==
          "model.gguf_bytes: sums to 2,251,799,813,685,246 bytes, more than 2^50 (1 PiB): not a real GGUF file");
    CHECK(error_of(R"({"layers":[1,2],"blocks":3})") == "model.gguf_bytes.blocks: unknown field");
    // The routed experts are part of their layer: one entry per layer, none above its layer's bytes.
    CHECK(error_of(R"({"layers":[10,20],"experts":[5]})") ==
          "model.gguf_bytes.experts: has 1 entries but layers has 2: give one per layer, or none for a dense model");
    CHECK(error_of(R"({"layers":[10,20],"experts":[5,21]})") ==
          "model.gguf_bytes.experts[1]: is 21 bytes, more than its whole layer (layers[1] = 20): the experts are part of their layer's bytes");
    // gguf_bytes alone is no architecture: a model object of labels and bytes still says so.
    CHECK_THAT(only_error(decode_share_link(link_around(R"({"version":1,"model":{"name":"x","gguf_bytes":{"layers":[]}}})"))),
               Catch::StartsWith("model: "));
}
