/* pcap_floor.c - the floor of the benchmark: libpcap reading every packet
 * of a capture and touching its bytes, nothing else. */
#include <pcap/pcap.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    char err[PCAP_ERRBUF_SIZE];
    pcap_t *pc = argc == 2 ? pcap_open_offline(argv[1], err) : NULL;
    if (!pc) {
        fprintf(stderr, "usage: pcap_floor CAPTURE (%s)\n", argc == 2 ? err : "");
        return 2;
    }
    struct pcap_pkthdr *h;
    const u_char *d;
    unsigned long long packets = 0, bytes = 0, sum = 0;
    while (pcap_next_ex(pc, &h, &d) == 1) {
        packets++;
        bytes += h->caplen;
        sum += d[h->caplen - 1];
    }
    pcap_close(pc);
    printf("%llu packets, %llu bytes (%llu)\n", packets, bytes, sum & 1);
    return 0;
}
