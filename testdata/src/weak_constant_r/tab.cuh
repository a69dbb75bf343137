// C++17 inline __constant__ data (cuRAND's __cr_lgamma_table is such a table): a weak
// definition in every object that includes it. -r keeps the references to it for the final
// link, where another object's copy may win (cubin-ld resolved them, and on sm_100+ their
// Mercury twins, as it does a strong definition's).
inline __constant__ double table[] = {1.0, 2.0, 6.0, 24.0, 120.0, 720.0};
