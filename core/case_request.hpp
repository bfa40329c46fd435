// SPDX-License-Identifier: Apache-2.0
//! @file
//! The two outside forms of a case request (core/generate.hpp), one of each, used everywhere a request
//! leaves the process (repro lines, report cases, finding.json, logs):
//!   text  the CLI fragment that regenerates it, e.g.
//!         --arch rglru --shape 2,33,16,2 --seed 7 --regime resets --io-dtype bfloat16 --sqrt-gradient bounded --no-h0
//!         (and `--decays log` for a log-form scan, `--resets-at-start` where every batch entry resets at t = 0)
//!   JSON  {"architecture", "shape": [B, L, W, H], "seed", "regime", "io_dtype", "sqrt_gradient", "h0", "dh_last"}
//!         and "decays", "resets_at_start" where they are not linear, false (the form of report.json's cases)
//! and the shape string of the command line, "B,L,W[,H]".
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/generate.hpp"
#include "core/json_reader.hpp"

namespace scancheck {

nlohmann::json to_json(const CaseRequest&);
//! Throws InputError naming the field of `reader`'s document.
CaseRequest request_from_json(const JsonReader& reader, const nlohmann::json& j, std::string_view path);

//! "B,L,W" or "B,L,W,H" (H defaults to 1), decimal integers; throws InputError quoting the text. Sizes are
//! not validated here (validate(Architecture, Shape) does that with the architecture's rules).
Shape parse_shape(std::string_view text);

//! "2,33,300": decimal integers separated by single commas (no empty items); InputError names `what`.
std::vector<std::int64_t> parse_integer_list(std::string_view text, std::string_view what);

}  // namespace scancheck
