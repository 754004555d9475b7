#!/bin/sh
# Catalogue attack: the candidate's own host program opens a connection (to the abstract unix
# socket the catalogue test listens on outside the sandbox, where a helper could serve stored
# outputs) and fails its self-check when it cannot; with a network namespace it cannot.
set -e
cd sources
python3 "$(dirname "$0")/edit.py" vortex/main.cpp replace '#include "common.h"' '#include <sys/socket.h>
#include <sys/un.h>
#include <cstdio>
#include <cstring>
#include "common.h"'
python3 "$(dirname "$0")/edit.py" vortex/main.cpp replace 'int main(int argc, char** argv) {' 'static bool vxs_reach_helper() {
  const int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  const char name[] = "vxsynth-catalogue-net";
  std::memcpy(a.sun_path + 1, name, sizeof name - 1);
  return fd >= 0 && connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(sa_family_t) + sizeof name) == 0;
}
int main(int argc, char** argv) {
  if (!vxs_reach_helper()) {
    std::puts("no network: FAILED!");
    return 1;
  }
  std::puts("network reachable");'
python3 "$(dirname "$0")/edit.py" ../output.json "candidate_network"
