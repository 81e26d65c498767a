// The native CLI as a user runs it: JSON on stdout, errors as one line and exit 2.
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct Run {
  int status;
  std::string out, err;
};

Run run(const std::string& args) {
  // Unique names: ctest -j runs the test cases of this file in parallel processes.
  static int counter = 0;
  const std::string stem = "cli_test_" + std::to_string(getpid()) + "_" + std::to_string(counter++);
  const std::string out = stem + ".out", err = stem + ".err";
  const std::string cmd = std::string(RESNORM_CLI) + " " + args + " >" + out + " 2>" + err;
  int raw = std::system(cmd.c_str());
  auto slurp = [](const std::string& p) {
    std::ifstream f(p);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
  };
  Run r{WEXITSTATUS(raw), slurp(out), slurp(err)};
  std::remove(out.c_str());
  std::remove(err.c_str());
  return r;
}

// The CLI with exactly these arguments (no shell: bytes reach argv as they are).
Run run_argv(const std::vector<std::string>& args) {
  static int counter = 0;
  const std::string stem = "cli_argv_" + std::to_string(getpid()) + "_" + std::to_string(counter++);
  const std::string out = stem + ".out", err = stem + ".err";
  const pid_t pid = fork();
  if (pid == 0) {
    if (!std::freopen(out.c_str(), "w", stdout) || !std::freopen(err.c_str(), "w", stderr)) _exit(127);
    std::vector<char*> argv{const_cast<char*>(RESNORM_CLI)};
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(RESNORM_CLI, argv.data());
    _exit(127);
  }
  int raw = 0;
  waitpid(pid, &raw, 0);
  auto slurp = [](const std::string& p) {
    std::ifstream f(p, std::ios::binary);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
  };
  Run r{WEXITSTATUS(raw), slurp(out), slurp(err)};
  std::remove(out.c_str());
  std::remove(err.c_str());
  return r;
}

int count_lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += (c == '\n');
  return n;
}

}  // namespace

TEST_CASE("resnorm simulate --json prints one JSON document with every array", "[cli]") {
  Run r =
      run("simulate --arch plain,residual,post_ln,pre_ln --depth 96 --width 64 --tokens 8 --expansion 1 "
          "--gain 1.0 --activation relu --init gaussian --final-norm none --seed 0 --json");
  REQUIRE(r.status == 0);
  CHECK(r.err.empty());
  CHECK(count_lines(r.out) == 1);
  CHECK(r.out.rfind("{\"config\": {\"arch\": [\"plain\", \"residual\", \"post_ln\", \"pre_ln\"], \"depth\": 96", 0) ==
        0);
  for (const char* key :
       {"\"plain\": {", "\"residual\": {", "\"post_ln\": {", "\"pre_ln\": {", "\"grad_norm\": [", "\"stream_rms\": [",
        "\"update_ratio\": [", "\"w1_grad_norm\": [", "\"w2_grad_norm\": [", "\"first_nonfinite\": null"})
    CHECK(r.out.find(key) != std::string::npos);
  // Defaults are the flags above: the bare command prints the same document.
  CHECK(run("simulate --json").out == r.out);
}

TEST_CASE("resnorm simulate prints a table without --json", "[cli]") {
  Run r = run("simulate --depth 8");
  REQUIRE(r.status == 0);
  CHECK(r.out.find("layer") != std::string::npos);
  CHECK(r.out.find("pre_ln") != std::string::npos);
}

TEST_CASE("bad flags exit 2 with one line naming flag, value and range, and no stdout", "[cli]") {
  const char* cases[][2] = {
      {"simulate --depth 0", "--depth: '0' is out of range (allowed 1..1024)"},
      {"simulate --width 100000", "--width: '100000' is out of range (allowed 2..512)"},
      {"simulate --gain nan", "--gain: 'nan' is not a finite number (allowed 0..4)"},
      {"simulate --arch plain,transformerz", "--arch: 'transformerz' is not a known architecture"},
      {"simulate --depth", "--depth: missing value (allowed 1..1024)"},
      {"simulate --depth --json", "--depth: missing value"},
      {"simulate --final-norm batch", "--final-norm: 'batch' is not a known value (allowed none|layernorm|rmsnorm)"},
      {"simulate --colour red", "unknown flag --colour"},
      {"simulate --depth 1024 --width 512 --expansion 4", "--depth: 1024 is too deep"},
      {"frobnicate", "unknown command"},
      // the JS API's rules: an architecture once, a number that is representable, each flag once
      {"simulate --arch pre_ln,pre_ln", "--arch: 'pre_ln' is listed twice (each once)"},
      {"train --arch pre_ln,post_ln,pre_ln", "--arch: 'pre_ln' is listed twice (each once)"},
      {"train --lr 1e-400", "--lr: '1e-400' is too small to represent (allowed 0..10)"},
      {"simulate --gain 4e-330", "--gain: '4e-330' is too small to represent (allowed 0..4)"},
      {"simulate --depth 4 --depth 5", "--depth: given more than once"},
      {"train --lr=0.1 --lr 0.2", "--lr: given more than once"},
  };
  for (auto& c : cases) {
    Run r = run(c[0]);
    INFO(c[0] << " -> " << r.err);
    CHECK(r.status == 2);
    CHECK(r.out.empty());
    CHECK(count_lines(r.err) == 1);
    CHECK(r.err.find(c[1]) != std::string::npos);
  }
}

TEST_CASE("numbers are decimal only: hex, hex floats, a '+', spaces and names are refused", "[cli]") {
  for (const char* v : {"0x10", "0x1.0p3", " 4", "4 ", "+2", "1e", "1.2.3", "4abc", "infinity", "0x10p0"}) {
    Run r = run_argv({"simulate", "--depth", v});
    INFO(v << " -> " << r.err);
    CHECK(r.status == 2);
    CHECK(r.out.empty());
    CHECK(r.err.rfind("resnorm: --depth", 0) == 0);
  }
  for (const char* v : {"4", "4.0", "4e0", "40E-1", ".4e1"}) {
    Run r = run(std::string("simulate --depth ") + v + " --json");
    INFO(v << " -> " << r.err);
    CHECK(r.status == 0);
    CHECK(r.out.find("\"depth\": 4,") != std::string::npos);
  }
  CHECK(run("simulate --gain -0.5").err.find("'-0.5' is out of range (allowed 0..4)") != std::string::npos);
  // zero written any way is zero; --flag=value is --flag value
  for (const char* v : {"0", "0.0", "0e-400", "-0", "0.000e5"}) {
    Run r = run(std::string("simulate --depth 2 --gain ") + v + " --json");
    INFO(v << " -> " << r.err);
    CHECK(r.status == 0);
  }
  CHECK(run("simulate --depth=3 --json").out.find("\"depth\": 3,") != std::string::npos);
}

TEST_CASE("flags are spelled with '-' only, and echoed text never carries a control byte", "[cli]") {
  Run under = run("simulate --final_norm rmsnorm");
  CHECK(under.status == 2);
  CHECK(under.err.find("unknown flag --final_norm (flags are spelled with '-', did you mean --final-norm?)") !=
        std::string::npos);
  // A newline and escape sequences in a flag name, a command, a value and an arch.
  const std::vector<std::vector<std::string>> cases = {{"simulate", "--de\npth", "4"},
                                                       {"fro\x1b[31mbnicate"},
                                                       {"simulate", "--depth", "4\x1b[2J"},
                                                       {"simulate", "\x07x"},
                                                       {"simulate", "--arch", "pre_ln,\x1b]0;pwned\x07"},
                                                       {"simulate", "--depth=\r\n4"}};
  for (const auto& args : cases) {
    Run r = run_argv(args);
    INFO(args.back() << " -> " << r.err);
    CHECK(r.status == 2);
    CHECK(count_lines(r.err) == 1);
    for (char c : r.err) CHECK((c == '\n' || (c >= 32 && c < 127)));
  }
}

TEST_CASE("a config over the memory or work budget exits 2 naming depth and the largest that fits", "[cli]") {
  Run r = run("simulate --arch plain,residual,post_ln,pre_ln --depth 1024 --width 128 --expansion 2 --tokens 64");
  CHECK(r.status == 2);
  CHECK(r.out.empty());
  CHECK(r.err.rfind("resnorm: --depth: 1024 needs ", 0) == 0);
  CHECK(r.err.find("allowed 1..") != std::string::npos);
}

TEST_CASE("the CLI takes --block, --heads and --causal", "[cli][attention]") {
  Run r = run("simulate --block transformer --depth 4 --heads 2 --causal false --arch pre_ln,admin --json");
  REQUIRE(r.status == 0);
  CHECK(r.err.empty());
  for (const char* key :
       {"\"block\": \"transformer\", \"heads\": 2, \"causal\": false}", "\"admin\": {", "\"attn_update_ratio\": [",
        "\"mlp_update_ratio\": [", "\"wq_grad_norm\": [", "\"wk_grad_norm\": [", "\"wv_grad_norm\": [",
        "\"wo_grad_norm\": [", "\"first_nonfinite\": null"})
    CHECK(r.out.find(key) != std::string::npos);
  Run t = run("simulate --block transformer --depth 4");
  REQUIRE(t.status == 0);
  CHECK(t.out.find("block=transformer heads=4 causal=true") != std::string::npos);
  Run bad = run("simulate --block transformer --width 6");
  CHECK(bad.status == 2);
  CHECK(bad.out.empty());
  CHECK(bad.err.find("--heads: 4 does not divide width 6") != std::string::npos);
  Run bad2 = run("simulate --heads 3");
  CHECK(bad2.status == 2);
  CHECK(bad2.err.find("--heads: '3' is not one of 1, 2, 4, 8") != std::string::npos);
}

TEST_CASE("the CLI takes --mix-fraction for simulate and train, names it in the JSON, refuses bad values",
          "[cli][train]") {
  // The mix_ln part of a simulate document, from its key to the end.
  const auto mix_part = [](const std::string& out) { return out.substr(out.find("\"mix_ln\": {")); };
  Run half = run("simulate --arch pre_ln,mix_ln --depth 8 --width 16 --tokens 4 --mix-fraction 0.5 --json");
  REQUIRE(half.status == 0);
  CHECK(half.err.empty());
  CHECK(half.out.find("\"seed\": 0, \"mix_fraction\": 0.5}") != std::string::npos);
  Run dflt = run("simulate --arch pre_ln,mix_ln --depth 8 --width 16 --tokens 4 --json");
  REQUIRE(dflt.status == 0);
  CHECK(dflt.out.find("\"mix_fraction\": 0.25}") != std::string::npos);
  CHECK(mix_part(half.out) != mix_part(dflt.out));  // the flag reaches the engine
  CHECK(run("simulate --arch pre_ln,mix_ln --depth 8 --width 16 --tokens 4 --mix-fraction=0.25 --json").out ==
        dflt.out);
  // Without mix_ln the document names no fraction (and stays as it was).
  Run none = run("simulate --arch pre_ln --depth 8 --width 16 --tokens 4 --mix-fraction 0.5 --json");
  REQUIRE(none.status == 0);
  CHECK(none.out.find("mix_fraction") == std::string::npos);
  CHECK(none.out == run("simulate --arch pre_ln --depth 8 --width 16 --tokens 4 --json").out);
  Run table = run("simulate --arch mix_ln --depth 8 --mix-fraction 0.5");
  REQUIRE(table.status == 0);
  CHECK(table.out.find(" mix_fraction=0.5\n") != std::string::npos);

  Run t =
      run("train --task copy --arch mix_ln --depth 2 --width 16 --heads 2 --seq 3 --vocab 6 --batch 4 --steps 2 "
          "--log-every 2 --mix-fraction 0.5 --json");
  REQUIRE(t.status == 0);
  CHECK(t.err.empty());
  CHECK(t.out.find("\"gain\": 1, \"mix_fraction\": 0.5, \"dyt_alpha\": 0.5, \"hc_streams\": 4, "
                   "\"sinkhorn_iters\": 20, \"ngpt_alpha\": 0.05, \"attn_res_blocks\": 0, \"positions\": ") !=
        std::string::npos);
  Run tt =
      run("train --task copy --arch mix_ln --depth 2 --width 16 --heads 2 --seq 3 --vocab 6 --batch 4 --steps 2 "
          "--log-every 2 --mix-fraction 1");
  REQUIRE(tt.status == 0);
  CHECK(tt.out.find(" --mix-fraction 1 ") != std::string::npos);

  const std::pair<const char*, const char*> bad[] = {
      {"simulate --mix-fraction 2", "resnorm: --mix-fraction: '2' is out of range (allowed 0..1)\n"},
      {"simulate --mix-fraction -1", "resnorm: --mix-fraction: '-1' is out of range (allowed 0..1)\n"},
      {"simulate --mix-fraction nan", "resnorm: --mix-fraction: 'nan' is not a finite number (allowed 0..1)\n"},
      {"simulate --mix-fraction quarter", "resnorm: --mix-fraction: 'quarter' is not a number (allowed 0..1)\n"},
      {"simulate --mix-fraction", "resnorm: --mix-fraction: missing value (allowed 0..1)\n"},
      {"simulate --mix_fraction 0.5",
       "resnorm: unknown flag --mix_fraction (flags are spelled with '-', did you mean --mix-fraction?)\n"},
      {"train --mix-fraction 1.5", "resnorm: --mix-fraction: '1.5' is out of range (allowed 0..1)\n"},
      {"train --mix-fraction inf", "resnorm: --mix-fraction: 'inf' is not a finite number (allowed 0..1)\n"}};
  for (const auto& [args, err] : bad) {
    Run r = run(args);
    INFO(args);
    CHECK(r.status == 2);
    CHECK(r.out.empty());
    CHECK(r.err == err);
  }
  for (const char* help : {"--help", "train --help"}) {
    Run h = run(help);
    INFO(help);
    CHECK(h.status == 0);
    const size_t at = h.out.find("--mix-fraction");
    REQUIRE(at != std::string::npos);
    const std::string line = h.out.substr(at, h.out.find('\n', at) - at);
    CHECK(line.find("0..1") != std::string::npos);
    CHECK(line.find("default 0.25") != std::string::npos);
  }
}

TEST_CASE("the CLI simulates and trains the five architectures after admin", "[cli][train]") {
  Run r = run("simulate --arch rezero,layerscale,lns,mix_ln,dwa --depth 8 --width 16 --tokens 4 --json");
  REQUIRE(r.status == 0);
  CHECK(r.err.empty());
  for (const char* key : {"\"arch\": [\"rezero\", \"layerscale\", \"lns\", \"mix_ln\", \"dwa\"]", "\"rezero\": {",
                          "\"layerscale\": {", "\"lns\": {", "\"mix_ln\": {", "\"dwa\": {"})
    CHECK(r.out.find(key) != std::string::npos);
  Run table = run("simulate --arch rezero,layerscale --depth 4 --width 8 --tokens 2");
  REQUIRE(table.status == 0);
  CHECK(table.out.find("layerscale ") != std::string::npos);
  Run t =
      run("train --task copy --arch rezero,layerscale,lns,mix_ln,dwa --depth 2 --width 16 --heads 2 --seq 3 "
          "--vocab 6 --batch 4 --steps 4 --log-every 4 --json");
  REQUIRE(t.status == 0);
  CHECK(t.err.empty());
  for (const char* key : {"{\"arch\": \"rezero\", \"step\": 4, ", "{\"arch\": \"dwa\", \"step\": 4, ",
                          "\"mix_ln\": {\"steps\": 4, \"outcome\": "})
    CHECK(t.out.find(key) != std::string::npos);
  // The summary has the gates where there are some (2 transformer blocks: 4 units) and DenseFormer's rows.
  const auto summary = [&](const char* arch) {
    const size_t at = t.out.find(std::string("\"") + arch + "\": {\"steps\"");
    return at == std::string::npos ? std::string() : t.out.substr(at, t.out.find("}}", at) + 2 - at);
  };
  CHECK(summary("rezero").find("\"gates\": {\"width\": 1, \"init\": [0, 0, 0, 0], \"magnitude\": [") !=
        std::string::npos);
  CHECK(summary("layerscale").find("\"gates\": {\"width\": 16, \"init\": [0.1, 0.1, 0.1, 0.1], ") != std::string::npos);
  CHECK(summary("rezero").find("\"dwa\": null") != std::string::npos);
  CHECK(summary("lns").find("\"gates\": null, \"dwa\": null") != std::string::npos);
  CHECK(summary("dwa").find("\"gates\": null, \"dwa\": [[") != std::string::npos);
}

TEST_CASE("resnorm train: one JSON line per logged step per arch, then the summary with the lesion", "[cli][train]") {
  Run r =
      run("train --task copy --arch post_ln,pre_ln --depth 2 --width 16 --heads 2 --seq 3 --vocab 6 --batch 4 "
          "--steps 6 --log-every 3 --json");
  REQUIRE(r.status == 0);
  CHECK(r.err.empty());
  std::vector<std::string> lines;
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  REQUIRE(lines.size() == 5);
  CHECK(lines[0].rfind("{\"arch\": \"post_ln\", \"step\": 3, ", 0) == 0);
  CHECK(lines[1].rfind("{\"arch\": \"pre_ln\", \"step\": 3, ", 0) == 0);
  CHECK(lines[3].rfind("{\"arch\": \"pre_ln\", \"step\": 6, ", 0) == 0);
  for (const char* key : {"\"heldout_loss\": ", "\"grad_norm\": [", "\"update_ratio\": [",
                          "\"top_cosine\": ", "\"output_change\": ", "\"first_nonfinite\": null"})
    CHECK(lines[2].find(key) != std::string::npos);
  CHECK(lines[4].rfind("{\"config\": {\"task\": \"copy\"", 0) == 0);
  for (const char* key : {"\"summary\": {\"post_ln\": {\"steps\": 6, \"outcome\": ", "\"lesion\": {\"base\": ",
                          "\"contribution_init\": [", "\"chance_loss\": "})
    CHECK(lines[4].find(key) != std::string::npos);
  Run table =
      run("train --task teacher --block mlp --arch residual --depth 2 --width 8 --batch 4 --steps 2 "
          "--log-every 1");
  REQUIRE(table.status == 0);
  CHECK(table.out.find("residual ") != std::string::npos);
  CHECK(table.out.find("lesion: one block skipped raises it by") != std::string::npos);
}

TEST_CASE("resnorm train: a bad flag exits 2 naming flag, value and range", "[cli][train]") {
  const std::pair<const char*, const char*> cases[] = {
      {"train --depth 0", "resnorm: --depth: '0' is out of range (allowed 1..128)\n"},
      {"train --optimizer lion", "resnorm: --optimizer: 'lion' is not a known value (allowed sgd|adam|adamw)\n"},
      {"train --lr 0x1", "resnorm: --lr: '0x1' is not a number (allowed 0..10)\n"},
      {"train --width 6", "resnorm: --heads: 4 does not divide width 6 (allowed 1, 2, 4 or 8)\n"},
      {"train --log_every 3",
       "resnorm: unknown flag --log_every (flags are spelled with '-', did you mean --log-every?)\n"},
      {"train --tokens 3", "resnorm: unknown flag --tokens (flags are spelled with '-', see resnorm --help)\n"}};
  for (const auto& [args, err] : cases) {
    Run r = run(args);
    INFO(args);
    CHECK(r.status == 2);
    CHECK(r.out.empty());
    CHECK(r.err == err);
  }
  Run big = run("train --depth 128 --width 256 --seq 64 --batch 256 --arch plain,residual,post_ln,pre_ln,admin");
  CHECK(big.status == 2);
  CHECK(big.err.rfind("resnorm: --depth: 128 needs ", 0) == 0);
  Run help = run("train --help");
  CHECK(help.status == 0);
  CHECK(help.out.find("--log-every") != std::string::npos);
}

TEST_CASE("the CLI takes --qk-norm for simulate and train, names it in the JSON, refuses other values by name",
          "[cli][qk_norm]") {
  Run s = run("simulate --arch pre_ln --depth 2 --width 16 --block transformer --heads 2 --qk-norm layernorm --json");
  REQUIRE(s.status == 0);
  CHECK(s.out.find("\"causal\": true, \"qk_norm\": \"layernorm\"") != std::string::npos);
  Run t =
      run("train --task copy --arch post_ln --depth 2 --width 16 --heads 2 --seq 3 --vocab 6 --batch 4 --steps 2 "
          "--log-every 2 --qk-norm layernorm --json");
  REQUIRE(t.status == 0);
  CHECK(t.out.find("\"heads\": 2, \"qk_norm\": \"layernorm\"") != std::string::npos);
  const std::pair<const char*, const char*> bad[] = {
      {"simulate --qk-norm rmsnorm", "resnorm: --qk-norm: 'rmsnorm' is not a known value (allowed none|layernorm)\n"},
      {"train --qk-norm cosine", "resnorm: --qk-norm: 'cosine' is not a known value (allowed none|layernorm)\n"}};
  for (const auto& [args, err] : bad) {
    Run r = run(args);
    INFO(args);
    CHECK(r.status == 2);
    CHECK(r.err == err);
  }
}
