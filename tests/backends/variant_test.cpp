// SPDX-License-Identifier: Apache-2.0
//! @file
//! The backend-name grammar (backends/variant.hpp) and the open registry (backends/backend.hpp): names parse
//! into their parts and format back to themselves, malformed names are refused with the part that is
//! wrong, and a backend registered from outside (as a worker or plugin will) is found, runs through
//! run_backend like a built-in, and cannot take a name twice.
#include <gtest/gtest.h>

#include <string>

#include "backends/backend.hpp"
#include "backends/variant.hpp"
#include "core/error.hpp"
#include "core/generate.hpp"
#include "tests/test_support.hpp"

namespace scancheck {
namespace {

using test::contains;
using test::input_error;

TEST(Variant, EveryBuiltinVariantRoundTrips) {
  for (const BackendInfo& b : registry()) {
    if (!b.builtin) continue;
    SCOPED_TRACE(b.name);
    const std::optional<Variant> v = parse_variant(b.variant);
    ASSERT_TRUE(v);
    EXPECT_EQ(to_string(*v), b.variant);
    EXPECT_EQ(v->flags, b.builtin->flags);
    EXPECT_EQ(to_string(v->schedule), to_string(b.builtin->schedule));
    EXPECT_EQ(to_string(parse_backend_name(b.name)), b.name);
  }
}

TEST(Variant, FlagsParseInTheirOrderOnly) {
  const auto v = parse_variant("fused_output_fused_write_shared_sfu_grouped_prefix64_hierarchical_chunk32");
  ASSERT_TRUE(v);
  EXPECT_EQ(v->flags, (VariantFlags{.fused_output = true, .fused_write = true, .shared_sfu = true}));
  EXPECT_EQ(v->schedule.kind, Schedule::Kind::hierarchical);
  EXPECT_EQ(v->schedule.group, 64);
  EXPECT_EQ(v->schedule.chunk, 32);
  // Not the built-in grammar: out of order, repeated, unknown flags, malformed schedules.
  for (const char* text :
       {"shared_sfu_fused_chunk16", "fused_fused_chunk16", "turbo_chunk16", "chunk", "chunk0", "chunk016", "chunk-4",
        "grouped_prefix32_chunk16", "grouped_prefix_hierarchical_chunk16", "sequential_fused", "", "triton_chunk64"})
    EXPECT_FALSE(parse_variant(text)) << text;
}

TEST(BackendNames, ProviderQualifiedNamesParse) {
  const BackendName n = parse_backend_name("mykernels:rglru/triton_chunk64@bf16");
  EXPECT_EQ(n.provider, "mykernels");
  EXPECT_EQ(n.architecture, Architecture::rglru);
  EXPECT_EQ(n.variant, "triton_chunk64");
  EXPECT_EQ(n.io_dtype, DType::bfloat16);
  EXPECT_EQ(to_string(n), "mykernels:rglru/triton_chunk64@bf16");
  EXPECT_EQ(to_string(baseline_of(Architecture::complex_scan, DType::float32)), "complex_scan/sequential@fp32");
  EXPECT_EQ(&baseline_backend(Architecture::rglru, DType::bfloat16), &find_backend("rglru/sequential@bf16"));
}

TEST(BackendNames, MalformedNamesSayWhatIsWrong) {
  const auto error_of = [](const char* name) { return input_error([&] { parse_backend_name(name); }); };
  EXPECT_TRUE(contains(error_of("rglru/chunk16"), "no '@dtype'"));
  EXPECT_TRUE(contains(error_of("rglru-chunk16@fp32"), "no '/'"));
  EXPECT_TRUE(contains(error_of("lstm/chunk16@fp32"), "unknown architecture 'lstm'"));
  EXPECT_TRUE(contains(error_of("scan/chunk16@fp16"), "unknown dtype 'fp16' (expected one of: fp32, bf16)"));
  EXPECT_TRUE(contains(error_of("My Kernels:scan/x@fp32"), "the provider must be [a-z0-9_-]+"));
  EXPECT_TRUE(contains(error_of("p:scan/a b@fp32"), "the variant must be"));
  EXPECT_TRUE(contains(error_of("p:scan/@fp32"), "the variant must be"));
  EXPECT_TRUE(is_provider_name("my-kernels_2"));
  EXPECT_FALSE(is_provider_name("MyKernels"));
  EXPECT_FALSE(is_provider_name(""));
}

// What a speed profile names (reports/profile.hpp): the variant alone or with its provider, and the name
// without its dtype, which every io dtype of the backend shares.
TEST(BackendNames, ProviderVariantsParseAndNamesFormatWithoutTheirDtype) {
  const ProviderVariant builtin = parse_provider_variant("fused_chunk16");
  EXPECT_EQ(builtin.provider, "");
  EXPECT_EQ(builtin.variant, "fused_chunk16");
  const ProviderVariant foreign = parse_provider_variant("mykernels:triton_chunk64");
  EXPECT_EQ(foreign.provider, "mykernels");
  EXPECT_EQ(foreign.variant, "triton_chunk64");
  const auto error_of = [](const char* text) { return input_error([&] { parse_provider_variant(text); }); };
  EXPECT_TRUE(contains(error_of("rglru/chunk16@bf16"), "'rglru/chunk16@bf16': expected the variant alone"));
  EXPECT_TRUE(contains(error_of("chunk16@bf16"), "without 'architecture/' and '@dtype'"));
  EXPECT_TRUE(contains(error_of("My Kernels:chunk16"), "'My Kernels:chunk16': the provider must be [a-z0-9_-]+"));
  EXPECT_TRUE(contains(error_of(":chunk16"), "the provider must be"));
  EXPECT_TRUE(contains(error_of("p:a b"), "'p:a b': the variant must be [A-Za-z0-9_.+-]+"));
  EXPECT_TRUE(contains(error_of(""), "the variant must be"));
  EXPECT_EQ(name_without_dtype(parse_backend_name("complex_rglru/fused_chunk16@bf16")), "complex_rglru/fused_chunk16");
  EXPECT_EQ(name_without_dtype(parse_backend_name("mykernels:rglru/triton_chunk64@fp32")),
            "mykernels:rglru/triton_chunk64");
  for (const BackendInfo& b : registry()) {
    const BackendName n = parse_backend_name(b.name);
    EXPECT_EQ(name_without_dtype(n) + "@" + std::string(dtype_token(n.io_dtype)), b.name);
  }
}

//! A foreign backend registered as a worker or plugin will be: it runs the built-in sequential baseline.
BackendInfo foreign_backend(std::string provider) {
  BackendInfo b;
  b.provider = std::move(provider);
  b.architecture = Architecture::scan;
  b.variant = "borrowed_sequential";
  b.io_dtype = DType::float32;
  b.run = [](const Case& c, Executor e) { return run_backend(baseline_backend(c), c, e); };
  return b;
}

TEST(Registry, ForeignBackendsRegisterAndRunLikeBuiltins) {
  BackendRegistry r;  // a private registry: the process-wide one keeps only built-ins in this test
  register_builtin_backends(r);
  const std::size_t builtins = r.size();
  EXPECT_EQ(builtins, 384u);
  EXPECT_TRUE(r.providers().empty());
  const BackendInfo& added = r.add(foreign_backend("testkernels"));
  EXPECT_EQ(added.name, "testkernels:scan/borrowed_sequential@fp32");
  EXPECT_EQ(r.find(added.name), &added);
  EXPECT_EQ(r.size(), builtins + 1);
  EXPECT_EQ(r.providers(), std::vector<std::string>{"testkernels"});
  EXPECT_FALSE(added.builtin);

  CaseRequest req;
  req.architecture = Architecture::scan;
  req.shape = {1, 5, 3, 1};
  const Case c = make_case(req);
  const Outputs got = run_backend(added, c, Executor::host);
  const Outputs want = run_backend(baseline_backend(c), c, Executor::host);
  EXPECT_TRUE(test::bitwise_equal(got.at("h"), want.at("h")));

  // Taken names, names whose fields disagree, and backends that cannot run are refused.
  EXPECT_TRUE(contains(input_error([&] { r.add(foreign_backend("testkernels")); }), "registered twice"));
  BackendInfo lying = foreign_backend("other");
  lying.name = "other:rglru/x@fp32";
  EXPECT_TRUE(contains(input_error([&] { r.add(lying); }), "does not match its fields"));
  BackendInfo idle = foreign_backend("idle");
  idle.run = nullptr;
  EXPECT_TRUE(contains(input_error([&] { r.add(idle); }), "nothing to run"));
  EXPECT_TRUE(contains(input_error([&] { r.add(foreign_backend("Bad Name")); }), "the provider must be"));

  // A failure inside a foreign backend is a BackendError naming it, never a crash.
  BackendInfo throwing = foreign_backend("throwing");
  throwing.run = [](const Case&, Executor) -> Outputs { throw std::runtime_error("kernel exploded"); };
  const BackendInfo& t = r.add(throwing);
  try {
    run_backend(t, c, Executor::host);
    ADD_FAILURE() << "no BackendError";
  } catch (const BackendError& e) {
    EXPECT_TRUE(contains(e.what(), "throwing:scan/borrowed_sequential@fp32")) << e.what();
    EXPECT_TRUE(contains(e.what(), "kernel exploded")) << e.what();
  }
}

}  // namespace
}  // namespace scancheck
