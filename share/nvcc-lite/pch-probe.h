/*
 * nvcc-lite's header cache includes this first when it precompiles
 * headers (lib/driver/pch.h).  A precompiled header keeps the values
 * these macros had when it was built; marked deprecated, each makes clang
 * warn wherever a header expands it, and a build that warns is not cached.
 * No compile of the user's sees this file.
 */
#pragma clang deprecated(__BASE_FILE__)
#pragma clang deprecated(__DATE__)
#pragma clang deprecated(__TIME__)
#pragma clang deprecated(__TIMESTAMP__)
