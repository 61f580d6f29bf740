// The floor of a paced sender on this machine: one kept-alive connection, a prebuilt send
// request (the same headers and body size as wacamp's), one request per INTERVAL_NS, a blocking
// read of each answer, then an absolute sleep to the next slot. No HTTP library, no log, no
// CSV: what is left is the loopback round trip itself. Prints CPU per request.
//   cc -O2 -o paced_client bench/paced_client.c
//   paced_client PORT COUNT INTERVAL_NS
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static double seconds(struct timeval tv) {
    return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

int main(int argc, char** argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: paced_client PORT COUNT INTERVAL_NS\n");
        return 2;
    }
    const int port = atoi(argv[1]);
    const long count = atol(argv[2]);
    const long interval_ns = atol(argv[3]);
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in address = {0};
    address.sin_family = AF_INET;
    address.sin_port = htons((unsigned short)port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0 || connect(fd, (struct sockaddr*)&address, sizeof address) != 0) {
        perror("paced_client: connect");
        return 1;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    const char* body =
        "{\"message\":{\"text\":\"Hi Person 1, this is a benchmark message.\"},\"type\":\"text\","
        "\"userName\":\"Person 1\",\"wa_id\":\"919000000001\"}";
    char request[1024];
    const int length = snprintf(request, sizeof request,
                                "POST /whatsapp-automation/wa/send-message?apiKey=sandbox-key HTTP/1.1\r\n"
                                "Host: 127.0.0.1:%d\r\nUser-Agent: wacamp/bench\r\nAccept: application/json\r\n"
                                "apiKey: sandbox-key\r\nContent-Type: application/json\r\n"
                                "Content-Length: %zu\r\n\r\n%s",
                                port, strlen(body), body);
    struct timespec next;
    clock_gettime(CLOCK_MONOTONIC, &next);
    char answer[16384];
    long ok = 0;
    for (long i = 0; i < count; ++i) {
        if (send(fd, request, (size_t)length, MSG_NOSIGNAL) != length) {
            perror("paced_client: send");
            return 1;
        }
        int got = 0;
        int needed = -1;  // header and body, once the header is complete
        while (needed < 0 || got < needed) {
            const ssize_t n = recv(fd, answer + got, sizeof answer - 1 - (size_t)got, 0);
            if (n <= 0) {
                perror("paced_client: recv");
                return 1;
            }
            got += (int)n;
            answer[got] = '\0';
            const char* end = strstr(answer, "\r\n\r\n");
            if (end != NULL && needed < 0) {
                const char* field = strcasestr(answer, "Content-Length:");
                needed = (int)(end - answer) + 4 + (field != NULL ? atoi(field + 15) : 0);
            }
        }
        ok += strncmp(answer, "HTTP/1.1 200", 12) == 0;
        next.tv_nsec += interval_ns;
        while (next.tv_nsec >= 1000000000L) {
            next.tv_nsec -= 1000000000L;
            next.tv_sec += 1;
        }
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
    }
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    const double cpu = seconds(usage.ru_utime) + seconds(usage.ru_stime);
    printf("%ld %ld %.3f %.3f\n", count, ok, seconds(usage.ru_utime), seconds(usage.ru_stime));
    fprintf(stderr, "paced_client: %ld requests (%ld answered 200), %.1f us CPU per request\n", count, ok,
            1e6 * cpu / (double)count);
    close(fd);
    return ok == count ? 0 : 1;
}
