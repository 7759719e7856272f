// Placeholder until the CLI lands; replaced in the integration step.
#include <cstdio>
int main() { std::puts("attest"); return 0; }
