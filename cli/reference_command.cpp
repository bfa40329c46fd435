// SPDX-License-Identifier: Apache-2.0
//! @file
//! `scancheck reference`: every output of a case (forward and backward) as float64 .npy, and the
//! per-element float32 error bounds under bounds/. Sampled runs also write covered/ masks.
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "core/case_dir.hpp"
#include "core/choices.hpp"
#include "core/error.hpp"
#include "core/npy.hpp"
#include "reference/reference.hpp"

namespace scancheck::cli {
namespace {

//! "0:1,2:0" -> blocks (batch 0, head 1), (batch 2, head 0).
std::vector<Block> parse_blocks(const std::string& text) {
  std::vector<Block> blocks;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, end - start);
    const std::size_t colon = item.find(':');
    try {
      if (colon == std::string::npos) throw std::invalid_argument(item);
      std::size_t used_b = 0, used_h = 0;
      const long long b = std::stoll(item.substr(0, colon), &used_b);
      const long long h = std::stoll(item.substr(colon + 1), &used_h);
      if (used_b != colon || used_h != item.size() - colon - 1) throw std::invalid_argument(item);
      blocks.push_back({b, h});
    } catch (const std::logic_error&) {
      throw InputError("--sample: '" + item + "' is not BATCH:HEAD");
    }
    start = end + 1;
  }
  return blocks;
}

void write_reference(const std::filesystem::path& out, const Case& c, const ReferenceOptions& options,
                     const ReferenceResult& r, double seconds) {
  write_directory_atomically(out, [&](const std::filesystem::path& tmp) {
    for (const auto& [name, values] : r.values) write_npy(tmp / (name + ".npy"), values);
    if (!r.bounds.empty()) {
      std::filesystem::create_directory(tmp / "bounds");
      for (const auto& [name, bound] : r.bounds) write_npy(tmp / "bounds" / (name + ".npy"), bound);
    }
    if (!r.covered.empty()) {
      std::filesystem::create_directory(tmp / "covered");
      for (const auto& [name, mask] : r.covered) {
        Tensor<std::int32_t> m(mask.dims());
        for (std::int64_t i = 0; i < mask.size(); ++i) m[i] = mask[i];
        write_npy(tmp / "covered" / (name + ".npy"), m);
      }
    }
    nlohmann::json meta = {
        {"architecture", std::string(to_string(c.architecture))},
        {"shape",
         {{"batch", c.shape.batch}, {"length", c.shape.length}, {"width", c.shape.width}, {"heads", c.shape.heads}}},
        {"precision", std::string(to_string(options.precision))},
        {"bounds", options.bounds ? "first-order bound on |float32 sequential evaluation - exact|" : "none"},
        {"blocks_computed", r.blocks_computed},
        {"blocks_total", r.blocks_total},
        {"seconds", seconds}};
    if (r.tiers) {
      nlohmann::json blocks = nlohmann::json::array();
      for (const Block& b : r.tiers->float128_blocks) blocks.push_back({b.batch, b.head});
      meta["tiers"] = {{"uncertified_elements", r.tiers->uncertified_elements}, {"float128_blocks", blocks}};
    }
    write_file(tmp / "reference.json", {meta.dump(2) + "\n"});
  });
}

}  // namespace

void add_reference(CLI::App& app, Action& action) {
  struct Options {
    std::string case_dir, out, precision = "float128", sample, sqrt_gradient;
    int threads = 0;
    bool no_bounds = false;
    ReferenceBudget budget;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand("reference", "Compute the high-precision reference of a case");
  cmd->add_option("--case", o->case_dir, "case directory")->required();
  cmd->add_option("--out", o->out, "output directory (replaced atomically)")->required();
  cmd->add_option("--precision", o->precision,
                  "float128 (default) | mpfr50 | tiered (double certified by its own error bound, float128 "
                  "for the blocks it does not certify: what check, fuzz and report judge with)");
  cmd->add_option("--threads", o->threads, "worker threads (default: all cores)");
  cmd->add_option("--sample", o->sample, "only these (batch:head) blocks, comma-separated, e.g. 0:0,3:1");
  cmd->add_flag("--no-bounds", o->no_bounds, "skip the float32 error bounds");
  o->budget.add_to(*cmd);
  cmd->add_option("--sqrt-gradient", o->sqrt_gradient,
                  sqrt_gradient_choices() + ": the gated layers' sqrt-gradient convention (default: the case's)");
  cmd->callback([&action, o] {
    action = [o] {
      require_output_apart(o->case_dir, o->out, "--out");
      Case c = load_case(o->case_dir);
      if (!o->sqrt_gradient.empty()) c.sqrt_gradient = parse_sqrt_gradient(o->sqrt_gradient);
      ReferenceOptions options;
      options.precision = parse_precision(o->precision);
      if (o->threads < 0) throw InputError("--threads must be >= 0");
      options.threads = o->threads;
      options.bounds = !o->no_bounds;
      if (!o->sample.empty()) options.sample = parse_blocks(o->sample);
      o->budget.require(c, options);
      const auto start = std::chrono::steady_clock::now();
      const ReferenceResult r = compute_reference(c, options);
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      write_reference(o->out, c, options, r, seconds);
      std::printf("wrote %s: %s %s, %lld of %lld blocks, %s, %.3f s\n", o->out.c_str(),
                  std::string(to_string(c.architecture)).c_str(), to_string(c.shape).c_str(),
                  static_cast<long long>(r.blocks_computed), static_cast<long long>(r.blocks_total),
                  o->precision.c_str(), seconds);
      if (r.tiers)
        std::printf("tiers: %lld elements not certified in double; %zu blocks recomputed in float128\n",
                    static_cast<long long>(r.tiers->uncertified_elements), r.tiers->float128_blocks.size());
      return 0;
    };
  });
}

}  // namespace scancheck::cli
