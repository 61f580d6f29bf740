// What libcurl alone costs on this machine: COUNT send requests (the same URL, headers and body
// size as wacamp's). No CSV, no rendering, no result log: the HTTP library by itself, beside
// wrk or the raw-socket client (no library) and wacamp.
// - Throughput: IN_FLIGHT at a time on reused easy handles, the usual curl_multi_perform /
//   curl_multi_poll loop. Prints "COUNT OK SECONDS REQUESTS_PER_SECOND".
// - Paced (INTERVAL_NS given): one reused handle, curl_easy_perform, then an absolute sleep to
//   the next slot. Prints "COUNT OK USER_SECONDS SYSTEM_SECONDS".
// Both tell libcurl there is no proxy, as wacamp does when the environment names none.
//   cc -O2 -o curl_client bench/curl_client.c -lcurl
//   curl_client BASE_URL COUNT IN_FLIGHT [INTERVAL_NS]
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static size_t discard(char* data, size_t size, size_t count, void* user) {
    (void)data;
    (void)user;
    return size * count;
}

static double now_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static double seconds_of(struct timeval tv) {
    return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

static void configure(CURL* e, const char* url, struct curl_slist* headers, const char* body) {
    curl_easy_setopt(e, CURLOPT_URL, url);
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(e, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE, (long)strlen(body));
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, discard);
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_PROXY, "");
    curl_easy_setopt(e, CURLOPT_NOPROXY, "");
}

// One request at a time, one every `interval_ns`.
static int paced(const char* url, struct curl_slist* headers, const char* body, long count, long interval_ns) {
    CURL* e = curl_easy_init();
    configure(e, url, headers, body);
    struct timespec next;
    clock_gettime(CLOCK_MONOTONIC, &next);
    long ok = 0;
    for (long i = 0; i < count; ++i) {
        long status = 0;
        if (curl_easy_perform(e) == CURLE_OK && curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &status) == CURLE_OK &&
            status == 200) {
            ++ok;
        }
        next.tv_nsec += interval_ns;
        while (next.tv_nsec >= 1000000000L) {
            next.tv_nsec -= 1000000000L;
            next.tv_sec += 1;
        }
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
    }
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    printf("%ld %ld %.3f %.3f\n", count, ok, seconds_of(usage.ru_utime), seconds_of(usage.ru_stime));
    curl_easy_cleanup(e);
    return ok == count ? 0 : 1;
}

int main(int argc, char** argv) {
    if (argc != 4 && argc != 5) {
        fprintf(stderr, "usage: curl_client BASE_URL COUNT IN_FLIGHT [INTERVAL_NS]\n");
        return 2;
    }
    const long count = atol(argv[2]);
    const int in_flight = atoi(argv[3]);
    char url[512];
    snprintf(url, sizeof url, "%s/whatsapp-automation/wa/send-message?apiKey=sandbox-key", argv[1]);
    const char* body =
        "{\"message\":{\"text\":\"Hi Person 1, this is a benchmark message.\"},\"type\":\"text\","
        "\"userName\":\"Person 1\",\"wa_id\":\"919000000001\"}";
    curl_global_init(CURL_GLOBAL_DEFAULT);
    struct curl_slist* headers = NULL;
    headers = curl_slist_append(headers, "User-Agent: wacamp/bench");
    headers = curl_slist_append(headers, "Accept: application/json");
    headers = curl_slist_append(headers, "apiKey: sandbox-key");
    headers = curl_slist_append(headers, "Content-Type: application/json");
    headers = curl_slist_append(headers, "Expect:");
    if (argc == 5) {
        const int result = paced(url, headers, body, count, atol(argv[4]));
        curl_slist_free_all(headers);
        curl_global_cleanup();
        return result;
    }
    CURLM* multi = curl_multi_init();
    curl_multi_setopt(multi, CURLMOPT_MAXCONNECTS, (long)in_flight + 4);
    CURL** handles = calloc((size_t)in_flight, sizeof *handles);
    long started = 0;
    long done = 0;
    long ok = 0;
    const double t0 = now_seconds();
    for (int i = 0; i < in_flight && started < count; ++i, ++started) {
        CURL* e = curl_easy_init();
        handles[i] = e;
        configure(e, url, headers, body);
        curl_multi_add_handle(multi, e);
    }
    int running = 1;
    while (done < count) {
        curl_multi_perform(multi, &running);
        int queued = 0;
        CURLMsg* msg;
        while ((msg = curl_multi_info_read(multi, &queued)) != NULL) {
            if (msg->msg != CURLMSG_DONE) {
                continue;
            }
            CURL* e = msg->easy_handle;
            long status = 0;
            curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &status);
            ok += msg->data.result == CURLE_OK && status == 200;
            ++done;
            curl_multi_remove_handle(multi, e);
            if (started < count) {
                ++started;
                curl_multi_add_handle(multi, e);  // the same handle again: its connection is reused
            }
        }
        if (done < count) {
            curl_multi_poll(multi, NULL, 0, 100, NULL);
        }
    }
    const double seconds = now_seconds() - t0;
    printf("%ld %ld %.3f %.1f\n", count, ok, seconds, (double)count / seconds);
    for (int i = 0; i < in_flight; ++i) {
        if (handles[i] != NULL) {
            curl_easy_cleanup(handles[i]);
        }
    }
    free(handles);
    curl_multi_cleanup(multi);
    curl_slist_free_all(headers);
    curl_global_cleanup();
    return ok == count ? 0 : 1;
}
