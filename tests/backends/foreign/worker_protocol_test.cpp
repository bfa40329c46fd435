// SPDX-License-Identifier: Apache-2.0
//! @file
//! The hello answer's optional fields beside "provider" (backends/foreign/worker_protocol.hpp): "runtime",
//! a string, and "provenance", an object of the strings package, version and commit. Absent, they are
//! empty; present, they are read as written; of the wrong type or with an unknown field they are bad input
//! naming the field, as every other field of the hello is.
#include <string>

#include <gtest/gtest.h>

#include "backends/foreign/worker_protocol.hpp"
#include "core/error.hpp"

namespace scancheck::foreign {
namespace {

//! A valid hello answer with `extra` (",\"key\": value" pairs) at its top level.
std::string hello_with(const std::string& extra) {
  return R"({"protocol": 1, "provider": "numpy", "backends": [{"variant": "textbook", "architecture": "rglru",)"
         R"( "io_dtype": "float32"}])" +
         extra + "}";
}

//! The message of the InputError reading `line` raises, or "" when it reads.
std::string hello_error(const std::string& line) {
  try {
    parse_hello_answer(line, "worker 'w'");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(WorkerProtocolHello, RuntimeAndProvenanceAreOptional) {
  const HelloAnswer hello = parse_hello_answer(hello_with(""), "worker 'w'");
  EXPECT_EQ(hello.runtime, "");
  EXPECT_TRUE(hello.provenance.empty());
}

TEST(WorkerProtocolHello, RuntimeAndProvenanceReadAsWritten) {
  const HelloAnswer hello = parse_hello_answer(
      hello_with(R"(, "runtime": "python 3.11.7, torch 2.11.0 cpu, triton 3.6.0 interpreter",)"
                 R"( "provenance": {"package": "mykernels", "version": "1.2.0", "commit": "0a1b2c3"})"),
      "worker 'w'");
  EXPECT_EQ(hello.runtime, "python 3.11.7, torch 2.11.0 cpu, triton 3.6.0 interpreter");
  EXPECT_EQ(hello.provenance, (BackendProvenance{"mykernels", "1.2.0", "0a1b2c3"}));
  EXPECT_EQ(to_string(hello.provenance), "package mykernels, version 1.2.0, commit 0a1b2c3");
  // Each field of the provenance is optional.
  const HelloAnswer some = parse_hello_answer(hello_with(R"(, "provenance": {"commit": "0a1b2c3"})"), "worker 'w'");
  EXPECT_EQ(some.provenance, (BackendProvenance{"", "", "0a1b2c3"}));
  EXPECT_EQ(to_string(some.provenance), "commit 0a1b2c3");
}

TEST(WorkerProtocolHello, AMistypedOrUnknownFieldIsBadInputNamingIt) {
  EXPECT_EQ(hello_error(hello_with(R"(, "runtime": 3)")), "worker 'w': hello: runtime: expected a string");
  EXPECT_EQ(hello_error(hello_with(R"(, "provenance": "mykernels 1.2.0")")),
            "worker 'w': hello: provenance: expected a JSON object");
  EXPECT_EQ(hello_error(hello_with(R"(, "provenance": {"version": 1.2})")),
            "worker 'w': hello: provenance.version: expected a string");
  EXPECT_EQ(hello_error(hello_with(R"(, "provenance": {"package": "p", "sha": "0a1b2c3"})")),
            "worker 'w': hello: provenance: unknown field 'sha' (expected one of: package, version, commit)");
}

//! A backend declaration (one entry of "backends") with `extra` fields.
std::string backend_with(const std::string& architecture, const std::string& extra) {
  return R"({"protocol": 1, "provider": "numpy", "backends": [{"variant": "v", "architecture": ")" + architecture +
         R"(", "io_dtype": "float32")" + extra + "}]}";
}

TEST(WorkerProtocolHello, DecaysInLogSpaceAreAScanBackendsOwnForm) {
  const HelloAnswer log = parse_hello_answer(backend_with("scan", R"(, "decays": "log", "omits": ["dlog_a"])"), "w");
  EXPECT_EQ(log.backends.at(0).constraints.decays, DecaySpace::log);
  EXPECT_EQ(log.backends.at(0).omits, std::vector<std::string>{"dlog_a"});
  EXPECT_EQ(parse_hello_answer(backend_with("scan", ""), "w").backends.at(0).constraints.decays, DecaySpace::linear);
  EXPECT_EQ(hello_error(backend_with("rglru", R"(, "decays": "log")")),
            "worker 'w': hello: backends[0].decays: rglru has no decays a kernel can take in log space");
  EXPECT_NE(hello_error(backend_with("scan", R"(, "decays": "logit")")), "");
  EXPECT_NE(hello_error(backend_with("scan", R"(, "omits": ["da"], "decays": "log")")), "");  // da is not its name
}

TEST(WorkerProtocolHello, ResetsAtStartNeedResets) {
  const HelloAnswer ok =
      parse_hello_answer(backend_with("rglru", R"(, "constraints": {"resets_at_start": true})"), "w");
  EXPECT_TRUE(ok.backends.at(0).constraints.resets_at_start);
  EXPECT_NE(hello_error(backend_with("rglru", R"(, "constraints": {"resets_at_start": true, "resets": false})")), "");
}

// The shape plan: "bucketed" or "any" (the default); another word is bad input naming the field and both words.
TEST(WorkerProtocolHello, ShapesAreAPlanOfAnyOrBucketed) {
  const auto plan = [](const char* constraints) {
    return parse_hello_answer(backend_with("scan", constraints), "w").backends.at(0).constraints.shapes;
  };
  EXPECT_EQ(plan(""), ShapePlan::any);
  EXPECT_EQ(plan(R"(, "constraints": {"shapes": "bucketed"})"), ShapePlan::bucketed);
  EXPECT_EQ(plan(R"(, "constraints": {"shapes": "any"})"), ShapePlan::any);
  const std::string error = hello_error(backend_with("scan", R"(, "constraints": {"shapes": "buckets"})"));
  EXPECT_NE(error.find("constraints.shapes"), std::string::npos) << error;
  EXPECT_NE(error.find("any, bucketed"), std::string::npos) << error;
}

}  // namespace
}  // namespace scancheck::foreign
