import { describe, expect, it } from 'vitest';
import { applyStep, inApplyOrder } from './apply-order.js';

const o = (apiVersion: string, kind: string, name = kind.toLowerCase()): { apiVersion: string; kind: string; name: string } => ({ apiVersion, kind, name });

describe('apply order', () => {
  it('puts Namespaces and CRDs first, RBAC and config before Services, Services before workloads, custom resources after them and webhooks last', () => {
    const given = [
      o('admissionregistration.k8s.io/v1', 'ValidatingWebhookConfiguration'),
      o('example.com/v1', 'Widget', 'w1'),
      o('apps/v1', 'Deployment'),
      o('v1', 'Service'),
      o('v1', 'ConfigMap'),
      o('rbac.authorization.k8s.io/v1', 'RoleBinding'),
      o('v1', 'ServiceAccount'),
      o('apiextensions.k8s.io/v1', 'CustomResourceDefinition'),
      o('v1', 'Namespace'),
      o('example.com/v1', 'Widget', 'w2'),
    ];
    expect(inApplyOrder(given, (x) => x).map((x) => `${x.kind}/${x.name}`)).toEqual([
      'Namespace/namespace',
      'CustomResourceDefinition/customresourcedefinition',
      'RoleBinding/rolebinding',
      'ServiceAccount/serviceaccount',
      'ConfigMap/configmap',
      'Service/service',
      'Deployment/deployment',
      'Widget/w1',
      'Widget/w2',
      'ValidatingWebhookConfiguration/validatingwebhookconfiguration',
    ]);
  });

  it('keys by group and kind: a custom kind named Deployment is not a workload', () => {
    expect(applyStep(o('apps/v1', 'Deployment'))).toBe('workloads');
    expect(applyStep(o('example.com/v1', 'Deployment'))).toBe('others');
    expect(applyStep(o('v1', 'Secret'))).toBe('config');
    expect(applyStep(o('batch/v1', 'Job'))).toBe('workloads');
  });
});
