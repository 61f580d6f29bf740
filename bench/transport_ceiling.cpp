// wacamp's HTTP transport with nothing else: N send requests (built by service::send_message_request
// from one prebuilt body), IN_FLIGHT at a time, through service::CurlTransport, the code the send
// loop uses. No CSV, no phone checks, no rendering, no result log, no dispatcher: what is left is
// libcurl and the transport around it. Prints "N OK SECONDS REQUESTS_PER_SECOND".
//   bench_transport_ceiling BASE_URL N IN_FLIGHT

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <variant>

#include "service/curl_transport.hpp"
#include "service/messages.hpp"
#include "service/requests.hpp"

int main(int argc, char** argv) {
    if (argc != 4) {
        std::fprintf(stderr, "usage: bench_transport_ceiling BASE_URL N IN_FLIGHT\n");
        return 2;
    }
    service::ServiceConfig config;
    config.base_url = argv[1];
    config.api_key = "sandbox-key";
    const long n = std::atol(argv[2]);
    const long in_flight = std::atol(argv[3]);
    service::OutgoingMessage message;
    message.kind = service::MessageKind::text;
    message.wa_id = "919000000001";
    message.user_name = "Person 1";
    message.text = "Hi Person 1, this is a benchmark message.";
    const std::string body = service::send_message_body(message);

    service::CurlTransport transport({.ca_file = "", .max_connections = in_flight + 4});
    long started = 0;
    long done = 0;
    long ok = 0;
    const auto t0 = std::chrono::steady_clock::now();
    for (; started < in_flight && started < n; ++started) {
        transport.start(static_cast<std::uint64_t>(started), service::send_message_request(config, body));
    }
    while (done < n) {
        for (auto& completion : transport.poll(std::chrono::milliseconds(100))) {
            ++done;
            const auto* response = std::get_if<service::HttpResponse>(&completion.result);
            ok += response != nullptr && response->status == 200 ? 1 : 0;
            if (started < n) {
                transport.start(static_cast<std::uint64_t>(started++), service::send_message_request(config, body));
            }
        }
    }
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - t0;
    std::printf("%ld %ld %.3f %.1f\n", n, ok, took.count(), static_cast<double>(n) / took.count());
    return ok == n ? 0 : 1;
}
