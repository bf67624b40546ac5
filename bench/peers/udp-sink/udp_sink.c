// SPDX-License-Identifier: Apache-2.0
//
// The cheapest UDP collector there can be, for bench/scripts/udp-floor.sh: one socket on
// 127.0.0.1:PORT with a 32 MiB receive buffer (SO_RCVBUFFORCE, as the agent asks), recvmmsg of 64
// datagrams at a time, each counted and discarded. It measures what the kernel alone costs a
// receiver per datagram (the copy out of the socket, the system calls), so that the sender's and
// the receiver's floor on one machine can be set beside what a real collector spends.
//
//   udp_sink PORT SECONDS   ->  "datagrams N bytes B user U sys S" (its own CPU-seconds)
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <time.h>
#define VLEN 64
#define BUFSZ 2048
int main(int argc, char **argv) {
  if (argc != 3) { fprintf(stderr, "usage: udp_sink PORT SECONDS\n"); return 2; }
  int port = atoi(argv[1]); int secs = atoi(argv[2]);
  int fd = socket(AF_INET, SOCK_DGRAM, 0);
  int rb = 32*1024*1024;
  if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rb, sizeof rb)) setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rb, sizeof rb);
  struct sockaddr_in a = {0}; a.sin_family = AF_INET; a.sin_port = htons(port); a.sin_addr.s_addr = htonl(0x7f000001);
  if (bind(fd, (struct sockaddr*)&a, sizeof a)) { perror("bind"); return 1; }
  struct timeval tv = {0, 200000}; setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  static char bufs[VLEN][BUFSZ]; struct iovec iov[VLEN]; struct mmsghdr m[VLEN]; struct sockaddr_in from[VLEN];
  for (int i = 0; i < VLEN; i++) { iov[i].iov_base = bufs[i]; iov[i].iov_len = BUFSZ; memset(&m[i], 0, sizeof m[i]);
    m[i].msg_hdr.msg_iov = &iov[i]; m[i].msg_hdr.msg_iovlen = 1; m[i].msg_hdr.msg_name = &from[i]; m[i].msg_hdr.msg_namelen = sizeof from[i]; }
  long long n = 0, bytes = 0; time_t end = time(NULL) + secs;
  while (time(NULL) < end) {
    int r = recvmmsg(fd, m, VLEN, 0, NULL);
    if (r > 0) { n += r; for (int i = 0; i < r; i++) { bytes += m[i].msg_len; m[i].msg_hdr.msg_namelen = sizeof from[i]; } }
  }
  struct rusage u; getrusage(RUSAGE_SELF, &u);
  printf("datagrams %lld bytes %lld user %.2f sys %.2f\n", n, bytes, u.ru_utime.tv_sec + u.ru_utime.tv_usec/1e6, u.ru_stime.tv_sec + u.ru_stime.tv_usec/1e6);
  return 0;
}
