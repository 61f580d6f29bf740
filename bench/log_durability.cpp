// What each durability policy of the result log costs: appends N attempt+result line pairs
// (what one message writes) with each policy and prints the time per message.
//   bench_log_durability [N] [DIR]

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>

#include "results/log_writer.hpp"
#include "results/records.hpp"

namespace {

double run(results::Durability durability, int n, const std::filesystem::path& path) {
    std::filesystem::remove(path);
    auto log = results::LogWriter::open(
        path.string(), {.durability = durability, .sync_interval = std::chrono::milliseconds(1000), .clock = nullptr});
    if (!log) {
        std::fprintf(stderr, "%s\n", log.error().message.c_str());
        std::exit(2);
    }
    results::AttemptRecord attempt;
    results::ResultRecord result;
    result.status = results::Status::sent;
    result.http_status = 200;
    result.message_id = "wamid.HBgM0123456789abcdef0123456789";
    result.latency_ms = 42;
    const auto start = std::chrono::steady_clock::now();
    for (int i = 1; i <= n; ++i) {
        attempt.row = result.row = i;
        attempt.wa_id = result.wa_id = std::to_string(919800000000LL + i);
        result.user_name = "Person " + std::to_string(i);
        attempt.at = result.at = std::chrono::system_clock::now();
        (void)log->append(results::to_line(attempt));
        (void)log->append(results::to_line(result));
    }
    (void)log->close();
    std::chrono::duration<double, std::micro> took = std::chrono::steady_clock::now() - start;
    return took.count() / n;
}

}  // namespace

int main(int argc, char** argv) {
    int n = argc > 1 ? std::stoi(argv[1]) : 20000;
    std::filesystem::path dir = argc > 2 ? argv[2] : std::filesystem::temp_directory_path();
    auto path = dir / "wacamp-bench-durability.jsonl";
    double none = run(results::Durability::none, n, path);
    double interval = run(results::Durability::interval, n, path);
    int n_every = std::min(n, 2000);  // fdatasync per line is slow: fewer messages
    double every = run(results::Durability::every_record, n_every, path);
    std::filesystem::remove(path);
    std::printf("durability      µs per message (attempt + result lines)   ratio to none\n");
    std::printf("none            %8.2f   (%d messages)                       1.00\n", none, n);
    std::printf("interval (1 s)  %8.2f   (%d messages)                       %.2f\n", interval, n, interval / none);
    std::printf("every_record    %8.2f   (%d messages)                       %.2f\n", every, n_every, every / none);
    return 0;
}
